import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';

export interface Started {
  child: ChildProcess;
  /** The first match of `ready` in the process's output. */
  match: RegExpMatchArray;
}

/**
 * Starts `node script` and waits until a line of its output matches `ready`; fails if it exits or
 * stays silent for `timeoutMs`. Output after that is dropped, except errors when `verbose`.
 */
export function startNode(script: string, env: Record<string, string>, ready: RegExp, name: string, timeoutMs = 20_000): Promise<Started> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    const output: string[] = [];
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${name} did not start within ${timeoutMs} ms:\n${output.join('\n')}`));
    }, timeoutMs);
    let started = false;
    const onLine = (line: string) => {
      if (started) return;
      output.push(line);
      const match = line.match(ready);
      if (!match) return;
      started = true;
      clearTimeout(timer);
      resolve({ child, match });
    };
    createInterface({ input: child.stdout! }).on('line', onLine);
    createInterface({ input: child.stderr! }).on('line', onLine);
    child.once('exit', (code) => {
      if (started) return;
      clearTimeout(timer);
      reject(new Error(`${name} exited with ${code}:\n${output.join('\n')}`));
    });
  });
}

export async function stopNode(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}
