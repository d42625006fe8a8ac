import calculateSlot from 'cluster-key-slot';

/** Redis Cluster's slot count: a key's slot is CRC16 of its hash tag modulo this. */
const CLUSTER_SLOTS = 16_384;

/**
 * The hash tags that split payments' Redis keys into `count` shards (LEDGER_STREAM_SHARDS): a script or
 * transaction touches the keys of one shard only, which on a Redis Cluster share one hash slot; the
 * shards spread the load over the primaries. Each shard's tag is chosen so its slot falls in the
 * shard's equal share of the slot range: a cluster whose primaries own equal contiguous ranges (what
 * `redis-cli --cluster create` makes) gets an equal number of shards on each primary. One Redis needs no
 * tags, but gets the same names, so the layout does not depend on where it runs.
 */
export class ShardTags {
  /** The hash tag of each shard, `{…}` included. */
  readonly tags: readonly string[];

  constructor(readonly count: number) {
    if (!Number.isInteger(count) || count < 1 || count > CLUSTER_SLOTS)
      throw new Error(`shards must be 1 to ${CLUSTER_SLOTS}`);
    this.tags = Array.from({ length: count }, (_, shard) => `{${shardTag(shard, count)}}`);
  }

  /** The shard of a SHA-256 hex digest (uniformly spread: its first 8 digits decide). */
  shardOf(hexDigest: string): number {
    return Number.parseInt(hexDigest.slice(0, 8), 16) % this.count;
  }

  tagOf(hexDigest: string): string {
    return this.tags[this.shardOf(hexDigest)];
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
