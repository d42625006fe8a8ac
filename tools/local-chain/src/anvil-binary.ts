import { accessSync, constants } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);

// @foundry-rs/anvil names its per-platform packages after Go-style architectures.
const ARCH: Record<string, string> = { x64: 'amd64', arm64: 'arm64' };

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function packageDir(name: string): string | undefined {
  try {
    return dirname(require.resolve(`${name}/package.json`));
  } catch {
    return undefined;
  }
}

/**
 * Path of the anvil executable. npm 11 skips @foundry-rs/anvil's postinstall, but the binary also
 * ships in the platform's optional dependency (@foundry-rs/anvil-<os>-<arch>/bin/anvil), which npm
 * installs without scripts; the wrapper's bin.mjs would work too but adds a node process per chain.
 * Order: $ANVIL_BIN, the platform package, the postinstall's download beside the wrapper, then PATH.
 */
export function resolveAnvilBinary(env: Record<string, string | undefined> = process.env): string {
  const fromEnv = env.ANVIL_BIN?.trim();
  if (fromEnv) {
    if (!executable(fromEnv)) throw new Error(`ANVIL_BIN=${fromEnv} is not an executable file`);
    return fromEnv;
  }
  const binary = process.platform === 'win32' ? 'anvil.exe' : 'anvil';
  const candidates: string[] = [];
  const arch = ARCH[process.arch];
  const platformDir = arch ? packageDir(`@foundry-rs/anvil-${process.platform}-${arch}`) : undefined;
  if (platformDir) candidates.push(join(platformDir, 'bin', binary));
  const wrapperDir = packageDir('@foundry-rs/anvil');
  if (wrapperDir) candidates.push(join(wrapperDir, binary));
  for (const candidate of candidates) if (executable(candidate)) return candidate;
  // Last resort: a foundry installation on PATH; spawn reports ENOENT clearly if there is none.
  return binary;
}
