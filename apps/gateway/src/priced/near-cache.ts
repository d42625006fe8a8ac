import { type CatalogQuery, type CatalogReply, catalogQueryKey } from '@appcat/contracts';

interface NearEntry {
  dataJson: string;
  /** When the upstream produced the data, by this process's clock (never later than the truth). */
  fetchedAt: number;
  /** When the catalog would stop serving it as fresh, or this cache's own time runs out: the earlier. */
  expiresAt: number;
  bytes: number;
  upstreamSource?: string;
}

/** Fixed cost per entry beyond its strings (map slot, object, numbers), bytes. */
const ENTRY_OVERHEAD_BYTES = 160;

/**
 * Catalog answers served a moment ago, so a hot query skips the catalog hop (never the charge). Kept
 * while the catalog counts them fresh and at most `ttlMs` (0: off), timed from when the request was sent,
 * so a reported age is never below the truth. Bounded by `maxBytes`, oldest first; expired entries go
 * first, so a burst of distinct queries does not leave it full of dead answers.
 */
export class NearCache {
  private readonly entries = new Map<string, NearEntry>();
  private bytes = 0;

  constructor(
    private readonly ttlMs: number,
    private readonly maxBytes: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** What the entries weigh, by the same estimate as the bound (UTF-16 strings plus a fixed overhead). */
  get heldBytes(): number {
    return this.bytes;
  }

  get enabled(): boolean {
    return this.ttlMs > 0 && this.maxBytes > 0;
  }

  /** The answer as a cache hit (its age from the entry's own fetch time), or undefined. */
  get(query: CatalogQuery): CatalogReply | undefined {
    if (!this.enabled) return undefined;
    const key = catalogQueryKey(query);
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    const now = this.now();
    if (now >= entry.expiresAt) {
      this.delete(key, entry);
      return undefined;
    }
    const ageSeconds = Math.floor((now - entry.fetchedAt) / 1000);
    const { dataJson, upstreamSource } = entry;
    return upstreamSource === undefined
      ? { dataJson, source: 'cache', ageSeconds }
      : { dataJson, source: 'cache', ageSeconds, upstreamSource };
  }

  /** Keeps `reply`, the answer to a request sent at `sentAt`, if the catalog counts it fresh. */
  remember(query: CatalogQuery, reply: CatalogReply, sentAt: number): void {
    if (!this.enabled || reply.source === 'stale' || reply.freshForMs === undefined || reply.freshForMs <= 0) return;
    const key = catalogQueryKey(query);
    const expiresAt = sentAt + Math.min(this.ttlMs, reply.freshForMs);
    const now = this.now();
    if (expiresAt <= now) return;
    const bytes = 2 * (key.length + reply.dataJson.length + (reply.upstreamSource?.length ?? 0)) + ENTRY_OVERHEAD_BYTES;
    if (bytes > this.maxBytes) return;
    const previous = this.entries.get(key);
    if (previous) this.delete(key, previous);
    // Map order is insertion order: the first entries are the oldest, expired or evicted first.
    for (const [oldKey, old] of this.entries) {
      if (old.expiresAt > now && this.bytes + bytes <= this.maxBytes) break;
      this.delete(oldKey, old);
    }
    const fetchedAt = sentAt - (reply.ageMs ?? 0);
    this.entries.set(key, {
      dataJson: reply.dataJson,
      fetchedAt,
      expiresAt,
      bytes,
      upstreamSource: reply.upstreamSource,
    });
    this.bytes += bytes;
  }

  private delete(key: string, entry: NearEntry): void {
    this.entries.delete(key);
    this.bytes -= entry.bytes;
  }
}
