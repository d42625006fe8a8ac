// Run in an install made by `npm ci --omit=dev`: removes the packages the lock marks devOptional.
// npm keeps those because a production package names them as optional peers (@prisma/client names
// the Prisma CLI and TypeScript), but only development tools load them: the Prisma CLI with its
// studio, engines downloader and embedded Postgres, and TypeScript, about 250 MB. Packages that are
// optional for production alone (anvil's platform binary) are not devOptional and stay.
//
//   node prune-dev-optional.mjs [install-dir]     (default: the current directory)
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(process.argv[2] ?? '.');
const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8'));
let removed = 0;
for (const [path, entry] of Object.entries(lock.packages)) {
  if (!path.includes('node_modules/') || entry.devOptional !== true) continue;
  const directory = join(root, path);
  if (!existsSync(directory)) continue;
  rmSync(directory, { recursive: true, force: true });
  removed += 1;
}
process.stdout.write(`removed ${removed} development-only package(s)\n`);
