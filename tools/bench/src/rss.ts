import { readFile } from 'node:fs/promises';

/** VmRSS of a /proc/<pid>/status text, in bytes; undefined if absent. */
export function parseRss(status: string): number | undefined {
  const match = /^VmRSS:\s+(\d+)\s+kB$/m.exec(status);
  return match ? Number(match[1]) * 1024 : undefined;
}

/** Resident size of a process now, bytes; undefined once it is gone (or off Linux). */
export async function residentBytes(pid: number): Promise<number | undefined> {
  try {
    return parseRss(await readFile(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return undefined;
  }
}

/** Samples the resident size of some processes every `intervalMs` and keeps each one's peak. */
export class RssSampler {
  private readonly peaks = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly pids: ReadonlyMap<string, number>,
    private readonly intervalMs = 250,
  ) {}

  start(): this {
    const sample = async () => {
      for (const [name, pid] of this.pids) {
        const bytes = await residentBytes(pid);
        if (bytes !== undefined) this.peaks.set(name, Math.max(this.peaks.get(name) ?? 0, bytes));
      }
    };
    void sample();
    this.timer = setInterval(() => void sample(), this.intervalMs);
    return this;
  }

  stop(): Map<string, number> {
    clearInterval(this.timer);
    return new Map(this.peaks);
  }
}

/** utime + stime of a /proc/<pid>/stat text, in clock ticks (fields 14 and 15; the name may hold spaces). */
export function parseCpuTicks(stat: string): number | undefined {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // fields[0] is field 3 (state): utime is field 14, stime field 15.
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  return Number.isFinite(utime) && Number.isFinite(stime) ? utime + stime : undefined;
}

/** CPU time a process has used so far, ms (Linux clock ticks are 10 ms); undefined once it is gone. */
export async function cpuMs(pid: number): Promise<number | undefined> {
  try {
    const ticks = parseCpuTicks(await readFile(`/proc/${pid}/stat`, 'utf8'));
    return ticks === undefined ? undefined : ticks * 10;
  } catch {
    return undefined;
  }
}
