/**
 * Gathers the items asked for in one event-loop turn and sends them together (at most `maxItems`),
 * flushed by the NATS client's end-of-turn hook, so a lone item waits for no timer. A batch that fails
 * as a whole fails each item. Not `dataloader`: it dedupes by key, which would merge two debits of one key.
 */
export class RequestCoalescer<Item, Result> {
  private items: Item[] = [];
  private waiters: Array<{ resolve(result: Result): void; reject(error: unknown): void }> = [];

  constructor(
    private readonly maxItems: number,
    private readonly schedule: (flush: () => void) => void,
    private readonly send: (items: Item[]) => Promise<Result[]>,
  ) {
    if (!Number.isInteger(maxItems) || maxItems < 1)
      throw new RangeError(`maxItems must be a positive integer, got ${maxItems}`);
  }

  add(item: Item): Promise<Result> {
    return new Promise<Result>((resolve, reject) => {
      if (this.items.length === 0) this.schedule(this.flush);
      this.items.push(item);
      this.waiters.push({ resolve, reject });
      if (this.items.length >= this.maxItems) this.flush();
    });
  }

  /** Sends what is queued (a no-op when the queue was already flushed this turn). Never throws. */
  readonly flush = (): void => {
    const { items, waiters } = this;
    if (items.length === 0) return;
    this.items = [];
    this.waiters = [];
    let sent: Promise<Result[]>;
    try {
      sent = this.send(items);
    } catch (error) {
      sent = Promise.reject(error);
    }
    sent.then(
      (results) => {
        for (let i = 0; i < waiters.length; i++) {
          if (i < results.length) waiters[i].resolve(results[i]);
          else waiters[i].reject(new Error(`batch reply has ${results.length} results for ${waiters.length} items`));
        }
      },
      (error: unknown) => {
        for (const waiter of waiters) waiter.reject(error);
      },
    );
  };
}
