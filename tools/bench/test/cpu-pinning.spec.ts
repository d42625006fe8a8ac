import { type ChildProcess, spawn } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { cpus } from 'node:os';
import { pinProcesses } from '../src/cpu-pinning.js';

/** The CPUs each thread of `pid` may run on, as the kernel lists them (`0`, `0-1`). */
async function allowedCpus(pid: number): Promise<string[]> {
  const threads = await readdir(`/proc/${pid}/task`);
  return Promise.all(
    threads.map(async (tid) => {
      const status = await readFile(`/proc/${pid}/task/${tid}/status`, 'utf8');
      return /^Cpus_allowed_list:\s*(\S+)$/m.exec(status)![1];
    }),
  );
}

const everyCpu = cpus().length > 1 ? `0-${cpus().length - 1}` : '0';
const children: ChildProcess[] = [];

/** A Node process with its several threads (V8's and libuv's) started, idle until killed. */
async function idleNode(): Promise<number> {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  children.push(child);
  const pid = child.pid!;
  for (let waited = 0; (await readdir(`/proc/${pid}/task`)).length < 2; waited += 20) {
    if (waited > 5000) throw new Error('the idle node process started no threads');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return pid;
}

afterAll(() => {
  for (const child of children) child.kill();
});

// The bench pins on machines of two CPUs or more; on one there is nothing to place.
const onTwoCpus = cpus().length > 1 ? describe : describe.skip;

onTwoCpus('pinProcesses', () => {
  it('pins every thread of each process to its CPUs', async () => {
    const [first, second] = [await idleNode(), await idleNode()];
    expect(
      await pinProcesses([
        { pid: first, cpuList: '0' },
        { pid: second, cpuList: '1' },
      ]),
    ).toBeUndefined();
    const [firstThreads, secondThreads] = [await allowedCpus(first), await allowedCpus(second)];
    expect(firstThreads.length).toBeGreaterThan(1);
    expect(new Set(firstThreads)).toEqual(new Set(['0']));
    expect(new Set(secondThreads)).toEqual(new Set(['1']));
  });

  it('pins none when one cannot be pinned: those done go back to every CPU', async () => {
    const [pinned, unpinnable] = [await idleNode(), await idleNode()];
    const failed = await pinProcesses([
      { pid: pinned, cpuList: '0' },
      // A CPU the machine does not have.
      { pid: unpinnable, cpuList: String(cpus().length + 7) },
    ]);
    expect(failed).toMatch(/Invalid argument/);
    expect(new Set(await allowedCpus(pinned))).toEqual(new Set([everyCpu]));
    expect(new Set(await allowedCpus(unpinnable))).toEqual(new Set([everyCpu]));
  });
});
