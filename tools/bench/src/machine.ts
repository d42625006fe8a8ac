import { cpus, loadavg, totalmem } from 'node:os';

/** The machine a report was measured on. */
export interface MachineDescription {
  cpuModel: string;
  cores: number;
  memoryBytes: number;
  node: string;
  date: string;
  /** 1-minute load average when the run started: other work on the machine shows here. */
  loadAverage: number;
}

export function describeMachine(now = new Date()): MachineDescription {
  const list = cpus();
  return {
    cpuModel: list[0]?.model.trim() ?? 'unknown',
    cores: list.length,
    memoryBytes: totalmem(),
    node: process.version,
    date: now.toISOString(),
    loadAverage: loadavg()[0],
  };
}

export function formatMachine(machine: MachineDescription): string {
  const gib = (machine.memoryBytes / 1024 ** 3).toFixed(1);
  return `${machine.cpuModel}, ${machine.cores} cores, ${gib} GiB memory, Node ${machine.node}, ${machine.date} (load average ${machine.loadAverage.toFixed(2)} at start)`;
}
