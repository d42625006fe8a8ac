#!/usr/bin/env node
// `npm run db:migrate`: applies prisma/migrations to DATABASE_URL (creating the database if missing).
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const cli = join(root, 'apps/payments/dist/migrate/cli.js');
if (!existsSync(cli)) execFileSync('npx', ['nx', 'run', '@appcat/payments:build'], { cwd: root, stdio: 'inherit' });
execFileSync('node', [cli, ...process.argv.slice(2)], { cwd: root, stdio: 'inherit' });
