// Build step: compiles contracts/*.sol into dist/<Contract>.json (abi, runtime bytecode, storage slots).
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { artifactPath } from './artifacts.js';
import { CONTRACT_NAMES, compileContracts } from './compile.js';

const artifacts = compileContracts();
for (const name of CONTRACT_NAMES) {
  const path = artifactPath(name);
  mkdirSync(dirname(path), { recursive: true });
  // Written beside and renamed, so a test reading dist/ concurrently never sees half a file.
  writeFileSync(`${path}.tmp`, JSON.stringify(artifacts[name], null, 2) + '\n');
  renameSync(`${path}.tmp`, path);
}
process.stdout.write(`compiled ${CONTRACT_NAMES.join(', ')} with solc ${artifacts.TestUSDC.compiler}\n`);
