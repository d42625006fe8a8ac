// Generates the Prisma client (src/generated/prisma) from prisma/schema.prisma before build and test,
// so a fresh clone builds without a prior manual step. Works offline: `prisma generate` never needs the
// schema engine, but the CLI downloads one unless PRISMA_SCHEMA_ENGINE_BINARY names an executable.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '../../..');
const prismaCli = join(dirname(createRequire(import.meta.url).resolve('prisma/package.json')), 'build/index.js');
const placeholderEngine = ['/bin/true', '/usr/bin/true'].find((path) => existsSync(path)) ?? process.execPath;

const result = spawnSync(process.execPath, [prismaCli, 'generate', '--config', join(repoRoot, 'prisma.config.ts')], {
  cwd: repoRoot,
  stdio: ['ignore', 'pipe', 'inherit'],
  env: {
    ...process.env,
    PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY ?? placeholderEngine,
    CHECKPOINT_DISABLE: '1',
    PRISMA_HIDE_UPDATE_MESSAGE: '1',
  },
});
if (result.status !== 0) {
  process.stdout.write(result.stdout ?? '');
  process.exit(result.status ?? 1);
}
