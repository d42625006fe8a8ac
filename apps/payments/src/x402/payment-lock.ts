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

/** Why a payload could not be claimed: it settled, another request holds it, or the facilitator refused it. */
export type ClaimRefusal = 'used' | 'held' | 'refused';

export type ClaimOutcome = { claimed: true; degraded: boolean } | { claimed: false; refusal: ClaimRefusal };

/**
 * KEYS: the claim. ARGV: the holder's mark, then the new value ('' deletes). Changes the claim only while
 * that holder has it, keeping its time to live.
 */
const TRANSITION_SCRIPT = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
if ARGV[2] == '' then redis.call('DEL', KEYS[1]) else redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL') end
return 1
`;

interface TransitionCommands {
  paymentClaimTransition(lock: string, holder: string, next: string): Promise<number>;
}

/**
 * The claim on one payment payload, in Redis so every replica sees it, held for as long as the payload
 * could settle: "held:<mark>" from its authorization until it settles ("used") or is given back (the
 * call failed: deleted, so the same payload can buy the retry) or refused by the facilitator
 * ("refused"). A second copy is answered at once and never reaches the facilitator. The guarantee of one
 * delivery per payment is that a call is delivered only after its own settlement succeeded, and a
 * payload settles at most once on chain; the claim keeps copies from settling and answers them fast.
 */
export class PaymentLock {
  private readonly redis: RedisClient & TransitionCommands;

  constructor(redis: RedisClient) {
    redis.defineCommand('paymentClaimTransition', { numberOfKeys: 1, lua: TRANSITION_SCRIPT });
    this.redis = redis as RedisClient & TransitionCommands;
  }

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
   * Claims the payload for `ttlMs` under `mark` (this authorization's own). When Redis is down the claim
   * is granted (and says so): on-chain settlement still admits one winner.
   */
  async claim(keys: PaymentKeys, ttlMs: number, mark: string): Promise<ClaimOutcome> {
    let previous: unknown;
    try {
      previous = await this.redis.call('SET', keys.lock, held(mark), 'PX', String(ttlMs), 'NX', 'GET');
    } catch {
      return { claimed: true, degraded: true };
    }
    if (previous === null) return { claimed: true, degraded: false };
    return { claimed: false, refusal: previous === 'used' || previous === 'refused' ? previous : 'held' };
  }

  /** Gives the payload back if `mark` still holds it (it bought nothing and may be retried); never rejects. */
  async release(keys: PaymentKeys, mark: string): Promise<boolean> {
    return this.transition(keys, mark, '');
  }

  /** Marks the payload refused by the facilitator if `mark` still holds it: a copy is refused at once for its life. */
  async refuse(keys: PaymentKeys, mark: string): Promise<boolean> {
    return this.transition(keys, mark, 'refused');
  }

  private async transition(keys: PaymentKeys, mark: string, next: string): Promise<boolean> {
    try {
      return (await this.redis.paymentClaimTransition(keys.lock, held(mark), next)) === 1;
    } catch {
      return false;
    }
  }
}

function held(mark: string): string {
  return `held:${mark}`;
}
