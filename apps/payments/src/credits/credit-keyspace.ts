import calculateSlot from 'cluster-key-slot';

/** Redis Cluster's slot count: a key's slot is CRC16 of its hash tag modulo this. */
const CLUSTER_SLOTS = 16_384;

/**
 * The names of every Redis key of the credit path, in one place. A debit's script touches the key's
 * hash, its unknown-marker and a ledger stream: on Redis Cluster these must share one hash slot. So the
 * ledger is split into `shards` streams, each key belongs to one shard (by its key hash), and all of a
 * shard's keys carry the shard's hash tag. One Redis needs no tags, but gets the same names, so the
 * layout does not depend on where it runs.
 *
 * Each shard's tag is chosen so its slot falls in the shard's equal share of the slot range: a cluster
 * whose primaries own equal contiguous ranges (what `redis-cli --cluster create` makes) gets an equal
 * number of shards on each primary.
 */
export class CreditKeyspace {
  /** The hash tag of each shard, `{…}` included. */
  private readonly tags: string[];
  /** The ledger stream of each shard; the flusher drains them all. */
  readonly streams: readonly string[];

  constructor(
    /** Ledger stream names start with this (LEDGER_STREAM). */
    streamPrefix: string,
    readonly shards: number,
  ) {
    if (!Number.isInteger(shards) || shards < 1 || shards > CLUSTER_SLOTS) throw new Error(`ledger shards must be 1 to ${CLUSTER_SLOTS}`);
    this.tags = Array.from({ length: shards }, (_, shard) => `{${shardTag(shard, shards)}}`);
    this.streams = this.tags.map((tag) => `${streamPrefix}:${tag}`);
  }

  /** The shard of a key hash (64 hex digits, uniformly spread: its first 8 decide). */
  shardOf(keyHash: string): number {
    return Number.parseInt(keyHash.slice(0, 8), 16) % this.shards;
  }

  keyOf(keyHash: string): string {
    return `credit:key:${this.tags[this.shardOf(keyHash)]}:${keyHash}`;
  }

  unknownMarkerOf(keyHash: string): string {
    return `credit:unknown:${this.tags[this.shardOf(keyHash)]}:${keyHash}`;
  }

  resyncMarkerOf(keyHash: string): string {
    return `credit:resync:${this.tags[this.shardOf(keyHash)]}:${keyHash}`;
  }

  streamOf(keyHash: string): string {
    return this.streams[this.shardOf(keyHash)];
  }

  /** Where a stream's malformed entries are kept (in the stream's slot). */
  static deadLettersOf(stream: string): string {
    return `${stream}:dead`;
  }
}

/** The first tag `l<shard>.<n>` whose slot lies in the shard's share of the slot range. */
function shardTag(shard: number, shards: number): string {
  const low = Math.floor((shard * CLUSTER_SLOTS) / shards);
  const high = Math.floor(((shard + 1) * CLUSTER_SLOTS) / shards);
  for (let n = 0; ; n++) {
    const tag = `l${shard}.${n}`;
    const slot = calculateSlot(tag);
    if (slot >= low && slot < high) return tag;
  }
}
