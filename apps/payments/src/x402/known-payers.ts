import type { RedisClient } from '@appcat/redis';
import { decodeWireTransaction } from './solana-wire.js';
import type { X402Keyspace } from './x402-keyspace.js';

/** How long a payer stays known after its last settlement. */
export const KNOWN_PAYER_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * Payers whose payment settled lately, per network, in Redis so every replica knows them. A signature
 * checked locally proves who signed, not that the wallet holds the money: a payer not known here is
 * sent to the facilitator's /verify (which checks funds) before its payment is held, so a wallet that
 * never paid costs no upstream fetch. A refused settlement forgets the payer, so a wallet drained since
 * costs one fetch, then is verified again. Every failure of Redis reads as "not known" (a /verify more,
 * never a check less) and never fails the call.
 */
export class KnownPayers {
  constructor(
    private readonly redis: RedisClient,
    private readonly keyspace: X402Keyspace,
    private readonly ttlMs = KNOWN_PAYER_TTL_MS,
  ) {}

  /**
   * Who pays: an EIP-3009 authorization's `from` (lower case), or a Solana transaction's signers but the
   * fee payer (the transfer's authority); undefined when the payload shows none.
   */
  static payerOf(payload: unknown): string | undefined {
    const from = (payload as { authorization?: { from?: unknown } } | null)?.authorization?.from;
    if (typeof from === 'string') return from.toLowerCase();
    const transaction = (payload as { transaction?: unknown } | null)?.transaction;
    if (typeof transaction !== 'string') return undefined;
    try {
      const signers = Object.keys(decodeWireTransaction(transaction).signatures).slice(1);
      return signers.length > 0 ? signers.join(',') : undefined;
    } catch {
      return undefined;
    }
  }

  /** Whether `payer` settled a payment on `network` within the TTL; false when Redis cannot tell. */
  async known(network: string, payer: string | undefined): Promise<boolean> {
    if (!payer) return false;
    try {
      return (await this.redis.exists(this.keyspace.payerOf(network, payer))) === 1;
    } catch {
      return false;
    }
  }

  /** Marks `payer` known on `network` for the TTL from now; never rejects. */
  async remember(network: string, payer: string | undefined): Promise<void> {
    if (!payer) return;
    await this.redis.set(this.keyspace.payerOf(network, payer), '1', 'PX', this.ttlMs).catch(() => undefined);
  }

  /** Forgets `payer` on `network`: its next payment is verified before it is held; never rejects. */
  async forget(network: string, payer: string | undefined): Promise<void> {
    if (!payer) return;
    await this.redis.del(this.keyspace.payerOf(network, payer)).catch(() => undefined);
  }
}
