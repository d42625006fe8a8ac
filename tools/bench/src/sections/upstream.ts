import { spawn } from 'node:child_process';
import { repoPath, ROOT } from '../processes.js';
import type { Report } from '../report.js';
import type { BenchSettings } from '../settings.js';

/**
 * Section 4: the catalog's upstream-calls benchmark (catalog/upstream-calls.ts), run as a process of
 * its own as `npm run bench:upstream -w @appcat/bench` runs it; its table goes into the report unchanged.
 */
export async function upstreamSection(settings: BenchSettings, report: Report): Promise<void> {
  const output: string[] = [];
  const code = await new Promise<number | null>((resolve, reject) => {
    const child = spawn(process.execPath, [repoPath('tools/bench/dist/catalog/upstream-calls.js')], {
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
  report.add(
    'Catalog upstream calls (tools/bench/src/catalog)',
    `Output of \`npm run bench:upstream -w @appcat/bench\`, run as one section:\n\n${output.join('').trim()}`,
  );
}
