import { ShardTags } from '../database/shard-tags.js';

/**
 * The names of every Redis key of the credit path, in one place. A debit's script touches the key's
 * hash, its unknown-marker, its shard's holds and ledger stream: on Redis Cluster these must share one hash slot. So the
 * ledger is split into `shards` streams, each key belongs to one shard (by its key hash), and all of a
 * shard's keys carry the shard's hash tag (ShardTags).
 */
export class CreditKeyspace {
  private readonly shardTags: ShardTags;
  /** The ledger stream of each shard; the flusher drains them all. */
  readonly streams: readonly string[];
  /** Each shard's credit holds (reservations), a sorted set by deadline; the sweeper walks them all. */
  readonly holdSets: readonly string[];

  constructor(
    /** Ledger stream names start with this (LEDGER_STREAM). */
    streamPrefix: string,
    readonly shards: number,
  ) {
    this.shardTags = new ShardTags(shards);
    this.streams = this.shardTags.tags.map((tag) => `${streamPrefix}:${tag}`);
    this.holdSets = this.shardTags.tags.map((tag) => `credit:holds:${tag}`);
  }

  /** The shard of a key hash (64 hex digits). */
  shardOf(keyHash: string): number {
    return this.shardTags.shardOf(keyHash);
  }

  keyOf(keyHash: string): string {
    return `credit:key:${this.shardTags.tagOf(keyHash)}:${keyHash}`;
  }

  unknownMarkerOf(keyHash: string): string {
    return `credit:unknown:${this.shardTags.tagOf(keyHash)}:${keyHash}`;
  }

  resyncMarkerOf(keyHash: string): string {
    return `credit:resync:${this.shardTags.tagOf(keyHash)}:${keyHash}`;
  }

  streamOf(keyHash: string): string {
    return this.streams[this.shardOf(keyHash)];
  }

  holdsOf(keyHash: string): string {
    return this.holdSets[this.shardOf(keyHash)];
  }

  /** Where a stream's malformed entries are kept (in the stream's slot). */
  static deadLettersOf(stream: string): string {
    return `${stream}:dead`;
  }
}
