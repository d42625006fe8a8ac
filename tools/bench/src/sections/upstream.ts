import { spawn } from 'node:child_process';
import { ROOT } from '../processes.js';
import type { Report } from '../report.js';
import type { BenchSettings } from '../settings.js';

/**
 * Section 4: the catalog's own upstream-calls benchmark (apps/catalog/bench, owned by the catalog),
 * run as it is with `npm run bench -w @appcat/catalog`; its table goes into the report unchanged.
 */
export async function upstreamSection(settings: BenchSettings, report: Report): Promise<void> {
  const output: string[] = [];
  const code = await new Promise<number | null>((resolve, reject) => {
    const child = spawn('npm', ['run', '--silent', 'bench', '-w', '@appcat/catalog'], {
      cwd: ROOT,
      env: { ...process.env, BENCH_ROUNDS: process.env.BENCH_ROUNDS ?? String(settings.rounds) },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    child.stdout.on('data', (chunk: Buffer) => {
      output.push(chunk.toString());
      process.stdout.write(chunk);
    });
    child.once('error', reject);
    child.once('exit', resolve);
  });
  if (code !== 0) throw new Error(`the catalog's upstream-calls benchmark exited with ${code}`);
  report.add('Catalog upstream calls (apps/catalog/bench)', `Output of \`npm run bench -w @appcat/catalog\`, run as one section:\n\n${output.join('').trim()}`);
}
