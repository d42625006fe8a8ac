#!/usr/bin/env node
// `npm run lock:platforms`, after any `npm install` that changed package-lock.json.
// npm records another platform's optional native package (nx's and unrs-resolver's bindings for
// macOS, Windows, musl…) only when the registry serves it; the registry these machines reach serves
// only this platform's, so the lock file lacks the others and `npm ci` refuses it as "out of sync".
// This adds each missing optional package as a bare optional entry: `npm ci` then installs what
// this platform needs and skips the rest, as it would anywhere.
import { readFileSync, writeFileSync } from 'node:fs';

const path = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(path, 'utf8'));
let added = 0;
for (const meta of Object.values(lock.packages)) {
  for (const [name, version] of Object.entries(meta.optionalDependencies ?? {})) {
    const key = `node_modules/${name}`;
    if (lock.packages[key]) continue;
    lock.packages[key] = { version, optional: true };
    added += 1;
  }
}
writeFileSync(path, JSON.stringify(lock, null, 2) + '\n');
process.stdout.write(`recorded ${added} optional platform package(s)\n`);
