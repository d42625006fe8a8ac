/**
 * Holds the NATS publishes made during one turn of the event loop and makes them together, on
 * `setImmediate`, so that they leave in one socket write.
 *
 * Why: the NATS client flushes its outbound buffer on the microtask after the first publish of a
 * synchronous run. Under load the gateway handles each HTTP request, and a service each handler's
 * Redis answer, in a callback of its own, so every request or reply became a `write` system call of
 * its own: a fifth to a quarter of each service's CPU, plus the NATS server's reads on the other end.
 * Deferring to the check phase of the same loop turn costs an idle process nothing measurable (the
 * check phase follows the poll phase directly) and lets a busy one send a whole turn's worth at once.
 *
 * Invariant: publishes run in the order they were deferred, each exactly once; one that throws
 * does not stop the others (its `onError` hears of it).
 *
 * Hooks registered with `beforeFlush` run at the start of the same flush, so whatever they defer (a
 * coalesced batch of this turn's requests) leaves in the same write, not a loop turn later.
 */
export class PublishBatch {
  // Two parallel lists rather than a wrapper closure per publish: this runs for every request and reply.
  private publishes: Array<() => void> = [];
  private onErrors: Array<(error: unknown) => void> = [];
  private hooks: Array<() => void> = [];
  private flushing = false;

  /** Queues `publish` for the end of this loop turn; `onError` gets what it throws. */
  defer(publish: () => void, onError: (error: unknown) => void): void {
    this.schedule();
    this.publishes.push(publish);
    this.onErrors.push(onError);
  }

  /** Runs `hook` once, at the start of this turn's flush, before the queued publishes leave. */
  beforeFlush(hook: () => void): void {
    this.schedule();
    this.hooks.push(hook);
  }

  private schedule(): void {
    if (!this.flushing && this.publishes.length === 0 && this.hooks.length === 0) setImmediate(this.flush);
  }

  /** Publishes what is queued now (also at shutdown, before a drain). */
  readonly flush = (): void => {
    this.flushing = true;
    try {
      const { hooks } = this;
      this.hooks = [];
      for (const hook of hooks) hook();
    } finally {
      this.flushing = false;
    }
    const { publishes, onErrors } = this;
    if (publishes.length === 0) return;
    this.publishes = [];
    this.onErrors = [];
    for (let i = 0; i < publishes.length; i++) {
      try {
        publishes[i]();
      } catch (error) {
        onErrors[i](error);
      }
    }
  };
}
