import { hash } from 'node:crypto';
import { ShardTags } from '../database/shard-tags.js';

/**
 * Settlement streams of earlier versions, drained and counted like the shards' own: records a replica of
 * an earlier version left there (killed before it could move them) still reach Postgres.
 */
const LEGACY_PENDING_STREAMS = ['x402:settlements:pending', 'x402:settlements:{x402}:pending'];

/** The Redis keys of one payment (X402Keyspace.keysOf): one hash slot, so one script can write both. */
export interface PaymentKeys {
  lock: string;
  pending: string;
}

/**
 * The names of every Redis key of x402 payments, in one place. A payment's replay lock and its
 * settlement record are written by one script, which on a Redis Cluster must stay in one hash slot;
 * so the settlement streams are split into shards like the ledger (the same ShardTags, as many as
 * LEDGER_STREAM_SHARDS), and a payment's lock and record both go to the shard of its identity. Payments
 * then spread over every primary instead of loading the one that would hold a single tag.
 */
export class X402Keyspace {
  private readonly shardTags: ShardTags;
  /** Each shard's stream of records on their way to Postgres. */
  readonly pendingStreams: readonly string[];
  /** Every stream records wait in: the shards' and those of earlier versions. */
  readonly drainedStreams: readonly string[];

  constructor(shards: number) {
    this.shardTags = new ShardTags(shards);
    this.pendingStreams = this.shardTags.tags.map((tag) => `x402:settlements:${tag}:pending`);
    this.drainedStreams = [...this.pendingStreams, ...LEGACY_PENDING_STREAMS];
  }

  /**
   * A payment's keys, both in the shard of its identity (PaymentLock.identify): its replay lock
   * ("settling", then "used") and the stream its settlement record waits in. Worked out once per call.
   */
  keysOf(identity: string): PaymentKeys {
    const shard = this.shardTags.shardOf(hash('sha256', identity, 'hex'));
    return { lock: `x402:payment:${this.shardTags.tags[shard]}:${identity}`, pending: this.pendingStreams[shard] };
  }

  /**
   * Where a payer that settled lately is marked (KnownPayers), on its own: a payer's payments spread over
   * every shard, so this key cannot share their slot, and is written beside their record, not by its script.
   */
  payerOf(network: string, payer: string): string {
    return `x402:payer:${network}:${payer}`;
  }

  /** Where records of a pending stream that Postgres refused, or that could not be read, are kept for an operator (the same slot). */
  static rejectedOf(pendingStream: string): string {
    return pendingStream.replace(/:pending$/, ':rejected');
  }
}
