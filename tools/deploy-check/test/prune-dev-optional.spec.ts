import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoPath } from '../src/repo.js';

/** docker/prune-dev-optional.mjs, which the image's production install runs, on a made-up install. */
let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'prune-'));
  const packages: Record<string, object> = {
    '': { name: 'app' },
    'apps/web': { name: '@app/web' },
    'node_modules/@prisma/client': { version: '7.0.0' },
    'node_modules/prisma': { version: '7.0.0', devOptional: true },
    'node_modules/typescript': { version: '5.0.0', devOptional: true },
    'node_modules/@foundry-rs/anvil-linux-amd64': { version: '1.0.0', optional: true },
    'node_modules/a/node_modules/b': { version: '1.0.0', devOptional: true },
    'node_modules/never-installed': { version: '1.0.0', devOptional: true },
  };
  writeFileSync(join(dir, 'package-lock.json'), JSON.stringify({ lockfileVersion: 3, packages }));
  for (const path of Object.keys(packages).filter(
    (path) => path.startsWith('node_modules/') && !path.endsWith('never-installed'),
  )) {
    mkdirSync(join(dir, path), { recursive: true });
    writeFileSync(join(dir, path, 'package.json'), '{}');
  }
});

afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('docker/prune-dev-optional.mjs', () => {
  it('removes the devOptional packages and keeps production and production-optional ones', () => {
    const output = execFileSync('node', [repoPath('docker/prune-dev-optional.mjs'), dir], { encoding: 'utf8' });
    expect(output).toBe('removed 3 development-only package(s)\n');
    expect(existsSync(join(dir, 'node_modules/prisma'))).toBe(false);
    expect(existsSync(join(dir, 'node_modules/typescript'))).toBe(false);
    expect(existsSync(join(dir, 'node_modules/a/node_modules/b'))).toBe(false);
    expect(existsSync(join(dir, 'node_modules/a'))).toBe(true);
    expect(existsSync(join(dir, 'node_modules/@prisma/client/package.json'))).toBe(true);
    expect(existsSync(join(dir, 'node_modules/@foundry-rs/anvil-linux-amd64/package.json'))).toBe(true);
  });
});
