interface Waiter<R> {
  resolve(result: R | undefined): void;
  reject(error: unknown): void;
}

interface OpenBatch<P, R> {
  params: P;
  ids: Map<string, Waiter<R>[]>;
  timer?: NodeJS.Timeout;
}

/**
 * Gathers single-item loads that arrive close together into one upstream call: Lookup takes a
 * comma-separated id list and the web catalogue `ids=`, so ten apps cost one call (and one rate
 * limiter token) instead of ten. Items are grouped by everything else in the URL (storefront,
 * language); a group goes out when its window closes or it is full.
 */
export class Batcher<P, R> {
  private readonly open = new Map<string, OpenBatch<P, R>>();

  constructor(
    private readonly windowMs: number,
    private readonly maxIds: number,
    /** One upstream call for a group; items missing from the map were not found. */
    private readonly run: (params: P, ids: string[]) => Promise<Map<string, R>>,
  ) {}

  /** @param group identifies `params` (the same group, the same params). */
  load(group: string, params: P, id: string): Promise<R | undefined> {
    return new Promise((resolve, reject) => {
      let batch = this.open.get(group);
      if (!batch) {
        const created: OpenBatch<P, R> = { params, ids: new Map() };
        created.timer = setTimeout(() => this.flush(group, created), this.windowMs);
        this.open.set(group, (batch = created));
      }
      const waiting = batch.ids.get(id) ?? [];
      waiting.push({ resolve, reject });
      batch.ids.set(id, waiting);
      if (batch.ids.size >= this.maxIds) this.flush(group, batch);
    });
  }

  private flush(group: string, batch: OpenBatch<P, R>): void {
    if (this.open.get(group) !== batch) return;
    this.open.delete(group);
    clearTimeout(batch.timer);
    const ids = [...batch.ids.keys()];
    this.run(batch.params, ids).then(
      (found) => {
        for (const [id, waiting] of batch.ids) for (const w of waiting) w.resolve(found.get(id));
      },
      (error: unknown) => {
        for (const waiting of batch.ids.values()) for (const w of waiting) w.reject(error);
      },
    );
  }
}
