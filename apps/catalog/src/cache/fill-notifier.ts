import type { RedisClient } from '@appcat/redis';

/**
 * Wakes requests waiting for another replica to fill a cache entry, over one Redis pub/sub channel.
 * A missed message only costs latency: waiters also poll.
 */
export class FillNotifier {
  private readonly waiters = new Map<string, Set<() => void>>();

  constructor(
    private readonly subscriber: RedisClient,
    readonly channel: string,
  ) {
    subscriber.on('message', (channel: string, key: string) => {
      if (channel === this.channel) this.wake(key);
    });
  }

  /** Subscribes; resolves false when Redis cannot be reached (waiters then poll only). */
  async start(): Promise<boolean> {
    try {
      await this.subscriber.subscribe(this.channel);
      return true;
    } catch {
      return false;
    }
  }

  /** Resolves when `key` is filled or failed, or after `ms`, whichever comes first. */
  wait(key: string, ms: number): Promise<void> {
    return new Promise((resolve) => {
      let waiting = this.waiters.get(key);
      if (!waiting) this.waiters.set(key, (waiting = new Set()));
      const set = waiting;
      const done = () => {
        clearTimeout(timer);
        set.delete(done);
        if (set.size === 0 && this.waiters.get(key) === set) this.waiters.delete(key);
        resolve();
      };
      const timer = setTimeout(done, ms);
      set.add(done);
    });
  }

  private wake(key: string): void {
    for (const done of [...(this.waiters.get(key) ?? [])]) done();
  }
}
