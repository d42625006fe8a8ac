import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/*
 * With tracing off, a service loads the OpenTelemetry API alone (a few small modules): the SDK, its
 * exporters and instrumentations are imported by libs/ops's runService only when tracing starts. Read
 * from the built libs/ops (built before the gateway's tests), in a fresh process.
 */
const OPS_DIST = join(dirname(fileURLToPath(import.meta.url)), '../../../libs/ops/dist/index.js');

/** The OpenTelemetry packages a fresh process has loaded after importing the built libs/ops. */
function packagesLoadedByOps(): string[] {
  const script = `
    import { createRequire } from 'node:module';
    await import(${JSON.stringify(OPS_DIST)});
    const loaded = Object.keys(createRequire(import.meta.url).cache)
      .map((path) => /node_modules\\/(@opentelemetry\\/[^/]+)/.exec(path)?.[1])
      .filter(Boolean);
    process.stdout.write(JSON.stringify([...new Set(loaded)]));`;
  return JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }));
}

describe('tracing off', () => {
  it('loads only the OpenTelemetry API with libs/ops: the SDK waits until runService starts tracing', () => {
    expect(packagesLoadedByOps()).toEqual(['@opentelemetry/api']);
  });
});
