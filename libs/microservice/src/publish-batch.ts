/**
 * Holds the NATS publishes of one event-loop turn and makes them together on `setImmediate`, in one
 * socket write. The NATS client flushes after each synchronous run, and under load each request and
 * reply runs in a callback of its own: a write each cost a fifth to a quarter of a service's CPU. The
 * check phase follows the poll phase directly, so an idle process waits for nothing.
 *
 * Publishes run in order, each once; one that throws does not stop the others. `beforeFlush` hooks run
 * first, so what they defer (a coalesced batch) leaves in the same write.
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
