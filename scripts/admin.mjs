#!/usr/bin/env node
// `npm run admin -- <command>`: the admin tool; it talks to payments over NATS, never the public port.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const cli = join(root, 'apps/admin/dist/main.js');
if (!existsSync(cli)) execFileSync('npx', ['nx', 'run', '@appcat/admin:build'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
const result = spawnSync('node', [cli, ...process.argv.slice(2)], { stdio: 'inherit' });
process.exit(result.status ?? 1);
