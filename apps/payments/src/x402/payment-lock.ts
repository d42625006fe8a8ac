import { createHash } from 'node:crypto';
import { getBase58Decoder } from '@solana/kit';
import type { RedisClient } from '@appcat/redis';
import { decodeWireTransaction } from './solana-wire.js';
import type { PaymentKeys } from './x402-keyspace.js';

/** What the lock's key is set to once the payment is recorded (see SettlementRecords.record). */
export interface LockState {
  value: string;
  ttlMs: number;
}

const base58 = getBase58Decoder();

/**
 * The payer's signatures on a Solana transaction: every signature but the first slot's, which is the
 * fee payer's and stays empty until the facilitator co-signs. They identify the transfer itself, so
 * copies that differ only in that empty slot, or in how they were encoded, share one lock.
 */
function solanaPayerSignatures(transaction: string): string | undefined {
  try {
    const { signatures } = decodeWireTransaction(transaction);
    const payer = Object.values(signatures)
      .slice(1)
      .filter((signature) => signature !== null)
      .map((signature) => base58.decode(signature));
    return payer.length > 0 ? payer.join(',') : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A short-lived claim on one payment payload, in Redis so every replica sees it: the second of two
 * identical payloads (sent twice, or five times at once) is answered "already used" at once, and is
 * never sent to the facilitator to settle (its verification, which changes nothing, may already be on
 * its way). The real guarantee of one delivery per payment is that a call is served only after its own
 * settlement succeeded, and a payload settles at most once on chain; the lock keeps duplicates from
 * settling and answers them fast.
 */
export class PaymentLock {
  constructor(private readonly redis: RedisClient) {}

  /** The identity of a payload: (network, payer, nonce) for EVM, the payer's transaction signature for Solana. */
  static identify(network: string, payload: unknown, rawHeader: string): string {
    const evm = (payload as { authorization?: { from?: unknown; nonce?: unknown } } | null)?.authorization;
    if (evm && typeof evm.from === 'string' && typeof evm.nonce === 'string') {
      return `${network}:${evm.from.toLowerCase()}:${evm.nonce.toLowerCase()}`;
    }
    const transaction = (payload as { transaction?: unknown } | null)?.transaction;
    const signatures = typeof transaction === 'string' ? solanaPayerSignatures(transaction) : undefined;
    if (signatures) return `${network}:sig:${signatures}`;
    const material = typeof transaction === 'string' ? transaction : rawHeader;
    return `${network}:tx:${createHash('sha256').update(material).digest('hex')}`;
  }

  /**
   * The "used" state, held as long as the payload could settle. It is set by the script that queues
   * the payment's settlement record, in the lock's own hash slot (X402Keyspace), so it costs no round
   * trip of its own.
   */
  static used(ttlMs: number): LockState {
    return { value: 'used', ttlMs };
  }

  /**
   * Claims the payload for `ttlMs`; false when another request holds or used it. When Redis is down
   * the claim is granted (and says so): on-chain settlement still admits one winner.
   */
  async claim(keys: PaymentKeys, ttlMs: number): Promise<{ claimed: boolean; degraded: boolean }> {
    try {
      const result = await this.redis.set(keys.lock, 'settling', 'PX', ttlMs, 'NX');
      return { claimed: result === 'OK', degraded: false };
    } catch {
      return { claimed: true, degraded: true };
    }
  }

  /** Gives the payload back (it bought nothing and may be retried, e.g. after the facilitator was down). */
  async release(keys: PaymentKeys): Promise<void> {
    await this.redis.del(keys.lock).catch(() => undefined);
  }
}
