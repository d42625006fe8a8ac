import { type Context, inContext, sampledContext } from '@appcat/ops';

interface Waiter<R> {
  resolve(result: R | undefined): void;
  reject(error: unknown): void;
}

interface Batch<P, R> {
  params: P;
  /** With tracing on, the context of the call that opened the batch: its upstream request is in that trace. */
  trace?: Context;
  ids: Map<string, Waiter<R>[]>;
  timer?: NodeJS.Timeout;
  /** The window has closed: the batch may start as soon as its group has no call out. */
  due: boolean;
  /** Waiting for the gate (a rate-limiter token); still taking ids until full. */
  admitting: boolean;
}

interface Group<P, R> {
  /** The batch still taking ids. */
  open?: Batch<P, R>;
  /** Batches of this group started (admitting or sent) and not yet answered. */
  inFlight: number;
}

export interface BatcherOptions<P, R> {
  windowMs: number;
  maxIds: number;
  /** One upstream call for a batch; ids missing from the map were not found. */
  run(params: P, ids: string[]): Promise<Map<string, R>>;
  /** Resolves when the call may go (a rate-limiter token is taken); rejects when it may not. */
  gate?(params: P): Promise<void>;
}

/**
 * Gathers single-item loads that arrive close together into one upstream call (Lookup and the web
 * catalogue take id lists): forty apps cost one call and one token. Grouped by the rest of the URL. A
 * batch starts when full, or when its window has closed and none of its group is out; it keeps taking
 * ids while it waits for a token, so the scarcer or slower the upstream, the more ids each call carries.
 */
export class Batcher<P, R> {
  private readonly groups = new Map<string, Group<P, R>>();

  constructor(private readonly options: BatcherOptions<P, R>) {}

  /** @param group identifies `params` (the same group, the same params). */
  load(group: string, params: P, id: string): Promise<R | undefined> {
    return new Promise((resolve, reject) => {
      let state = this.groups.get(group);
      if (!state) this.groups.set(group, (state = { inFlight: 0 }));
      let batch = state.open;
      if (!batch) {
        const created: Batch<P, R> = {
          params,
          ids: new Map(),
          due: false,
          admitting: false,
          trace: sampledContext(),
        };
        created.timer = setTimeout(() => {
          created.due = true;
          this.startIfDue(group);
        }, this.options.windowMs);
        state.open = batch = created;
      }
      const waiting = batch.ids.get(id) ?? [];
      waiting.push({ resolve, reject });
      batch.ids.set(id, waiting);
      if (batch.ids.size >= this.options.maxIds) {
        // Full: it takes no more ids; the next one opens a new batch.
        state.open = undefined;
        clearTimeout(batch.timer);
        if (!batch.admitting) this.start(group, state, batch);
      }
    });
  }

  private startIfDue(group: string): void {
    const state = this.groups.get(group);
    const batch = state?.open;
    if (state && batch?.due && !batch.admitting && state.inFlight === 0) this.start(group, state, batch);
  }

  private start(group: string, state: Group<P, R>, batch: Batch<P, R>): void {
    batch.admitting = true;
    state.inFlight++;
    const settle = () => {
      state.inFlight--;
      if (state.open) this.startIfDue(group);
      else if (state.inFlight === 0 && this.groups.get(group) === state) this.groups.delete(group);
    };
    const rejectAll = (error: unknown) => {
      for (const waiting of batch.ids.values()) for (const w of waiting) w.reject(error);
    };
    const gate = this.options.gate;
    const admitted = gate ? inContext(batch.trace, () => gate(batch.params)) : Promise.resolve();
    admitted
      .then(() => {
        if (state.open === batch) state.open = undefined;
        clearTimeout(batch.timer);
        return inContext(batch.trace, () => this.options.run(batch.params, [...batch.ids.keys()]));
      })
      .then(
        (found) => {
          settle();
          for (const [id, waiting] of batch.ids) for (const w of waiting) w.resolve(found.get(id));
        },
        (error: unknown) => {
          if (state.open === batch) state.open = undefined;
          settle();
          rejectAll(error);
        },
      );
  }
}
