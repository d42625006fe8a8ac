import { execFile } from 'node:child_process';
import { cpus } from 'node:os';
import { promisify } from 'node:util';
import type { Stack } from './stack.js';

const run = promisify(execFile);

/** A process and the CPUs it may run on (a `taskset` list: `0`, `0,1`). */
export interface Placement {
  pid: number;
  cpuList: string;
}

/** `count` CPUs' ids from `from`, as a `taskset` list. */
function cpuIds(from: number, count: number): string {
  return Array.from({ length: count }, (_, i) => String(from + i)).join(',');
}

/**
 * Pins each process of `placements` (every thread) to its CPUs, all or none: when one cannot be pinned,
 * those already pinned go back to every CPU, since half pinned is worse than not pinned at all. Resolves
 * with the error's first line when it could not pin them, undefined when it did.
 */
export async function pinProcesses(placements: Placement[]): Promise<string | undefined> {
  const pin = (pid: number, cpuList: string) =>
    run('taskset', ['--all-tasks', '--pid', '--cpu-list', cpuList, String(pid)]);
  try {
    for (const { pid, cpuList } of placements) await pin(pid, cpuList);
    return undefined;
  } catch (error) {
    const every = cpuIds(0, cpus().length);
    for (const { pid } of placements) await pin(pid, every).catch(() => undefined);
    const stderr = (error as { stderr?: unknown }).stderr;
    const said = typeof stderr === 'string' && stderr.trim() !== '' ? stderr : String(error);
    return said.trim().split('\n')[0];
  }
}

/**
 * Pins each kind of process to the same CPUs in every one of `stacks`: the gateways and NATS servers to
 * the first half of the machine's CPUs; payments, the catalogs and Redis to the second. The load
 * generator and Postgres are left to the scheduler.
 *
 * Why: stacks loaded side by side otherwise share the cores as the scheduler happens to place their
 * processes, and two identical untraced stacks measured 0.93–1.13 of each other round to round; pinned
 * alike, 1.00–1.05 (docs/bench-findings.md, 2026-11-28 09:50). Each stack on a core of its own did
 * worse: one core also serves the machine, and the stack on it ran at 0.70 of its twin.
 *
 * Resolves with what was done, for the report: nothing where it cannot be (one CPU, no `taskset`).
 */
export async function pinAlike(stacks: Stack[]): Promise<string> {
  const count = cpus().length;
  if (count < 2) return 'not pinned (one CPU)';
  const front = cpuIds(0, count >> 1);
  const back = cpuIds(count >> 1, count - (count >> 1));
  const placements = stacks.flatMap((stack): Placement[] => [
    { pid: stack.services.get('gateway')!.process.pid, cpuList: front },
    { pid: stack.nats.process.pid!, cpuList: front },
    { pid: stack.services.get('payments')!.process.pid, cpuList: back },
    { pid: stack.services.get('catalog')!.process.pid, cpuList: back },
    { pid: stack.redis.process.pid!, cpuList: back },
  ]);
  const failed = await pinProcesses(placements);
  return failed !== undefined
    ? `not pinned (taskset: ${failed})`
    : `each kind of service pinned to the same CPUs in both stacks: the gateways and NATS servers to CPU ${front}, payments, the catalogs and Redis to CPU ${back}`;
}
