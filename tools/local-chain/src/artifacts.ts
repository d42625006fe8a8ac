import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { ContractArtifact, ContractName } from './compile.js';

// Both src/ and dist/ sit one level below the package root, so this resolves from either.
const distDir = new URL('../dist/', import.meta.url);

export function artifactPath(name: ContractName): string {
  return fileURLToPath(new URL(`${name}.json`, distDir));
}

let compiledInProcess: Promise<Record<ContractName, ContractArtifact>> | undefined;

/**
 * The artifact the build wrote to dist/. Tests run from sources and may run before (or without)
 * this package's build, so a missing artifact is compiled in-process instead, once per process.
 */
export async function loadArtifact(name: ContractName): Promise<ContractArtifact> {
  const path = artifactPath(name);
  if (existsSync(path)) return JSON.parse(readFileSync(path, 'utf8')) as ContractArtifact;
  compiledInProcess ??= import('./compile.js').then((m) => m.compileContracts());
  return (await compiledInProcess)[name];
}
