import { ErrorCode, type X402Receipt } from '@appcat/contracts';
import type { Context } from '@appcat/ops';
import { Injectable, Logger } from '@nestjs/common';
import { httpErrorFor } from '../errors/http-status.js';
import type { Charge } from '../priced/priced-result.js';
import { AnswerSeal } from './answer-seal.js';
import type { CallName } from './call-names.js';
import { IdempotencyClient } from './idempotency.client.js';

/** How long a duplicate waits for the first call with its name to finish before it is told to retry. */
const WAIT_MS = 30_000;
const POLL_MS = 50;

/** A call's outcome as a value: its answer, which carries what it was charged, or its failure (never charged). */
export type CallOutcome<A extends { charge: Charge }> = { ok: true; answer: A } | { ok: false; error: unknown };

/** A charge as remembered in JSON: a debit with the balance it left (µUSD as text), or a settlement's receipt. */
type RememberedCharge = { method: 'credits'; balance: string } | { method: 'x402'; receipt: X402Receipt };

/** What a record keeps of a charged answer: the charge apart, in its JSON form, and the rest as it was. */
interface Remembered<A extends { charge: Charge }> {
  charge: RememberedCharge;
  answer: Omit<A, 'charge'>;
}

/** The one codec of a remembered answer's charge (JSON has no bigint). */
const rememberedCharge = {
  encode: (charge: Charge): RememberedCharge =>
    charge.method === 'credits' ? { method: 'credits', balance: charge.balance.toString() } : charge,
  decode: (charge: RememberedCharge): Charge =>
    charge.method === 'credits' ? { method: 'credits', balance: BigInt(charge.balance) } : charge,
};

/**
 * Runs a call under a name (Idempotency-Key, x402 payment-identifier) so that a retry gets the first
 * answer again instead of paying twice. The record is claimed before anything is held or charged,
 * atomically across every replica (payments keeps it in Redis); a duplicate arriving while the first is
 * running waits for its answer. Only a charged answer is remembered: a failure charged nothing, so its
 * record is forgotten and a retry is a fresh try. A name marked `sealed` has its answer kept encrypted
 * (AnswerSeal), openable only by a retry with the same name and fingerprint.
 */
@Injectable()
export class RememberedCalls {
  private readonly logger = new Logger('RememberedCalls');

  constructor(private readonly records: IdempotencyClient) {}

  /**
   * The outcome of `make`, or of the first call with this name (a call without one is simply made);
   * never rejects. `trace`: the call's trace context, which its requests to payments carry.
   */
  async run<A extends { charge: Charge }>(
    name: CallName | undefined,
    requestId: string,
    make: () => Promise<CallOutcome<A>>,
    trace?: Context,
  ): Promise<CallOutcome<A>> {
    try {
      if (!name) return await make();
      const deadline = Date.now() + WAIT_MS;
      for (;;) {
        const record = await this.records.begin(
          { scope: name.scope, key: name.key, fingerprint: name.fingerprint, requestId },
          trace,
        );
        switch (record.state) {
          case 'conflict':
            return refused(
              name.label === 'Idempotency-Key'
                ? 'Idempotency-Key was used for another request'
                : 'payment-identifier was used with another payment or for another call',
            );
          case 'done-unkept':
            return refused(
              `the first call with this ${name.label} was made and charged, but its answer was too large to remember`,
            );
          case 'done':
            return this.replayed<A>(name, record.answerJson);
          case 'in-flight':
            if (Date.now() > deadline)
              return refused(`the first call with this ${name.label} is still running; retry shortly`);
            await new Promise((resolve) => setTimeout(resolve, POLL_MS));
            continue;
          case 'claimed':
            return await this.makeClaimed(name, record.token, requestId, make, trace);
        }
      }
    } catch (error) {
      return { ok: false, error };
    }
  }

  /** The first call's answer again: a sealed one opened with the name and fingerprint it was sealed under. */
  private replayed<A extends { charge: Charge }>(name: CallName, answerJson: string): CallOutcome<A> {
    const opened = name.sealed ? AnswerSeal.for(name).open(answerJson) : answerJson;
    if (opened === undefined)
      return refused(
        `the first call with this ${name.label} was made and charged, but its remembered answer cannot be opened`,
      );
    const remembered = JSON.parse(opened) as Remembered<A>;
    return { ok: true, answer: { ...remembered.answer, charge: rememberedCharge.decode(remembered.charge) } as A };
  }

  private async makeClaimed<A extends { charge: Charge }>(
    name: CallName,
    token: string,
    requestId: string,
    make: () => Promise<CallOutcome<A>>,
    trace: Context | undefined,
  ): Promise<CallOutcome<A>> {
    let outcome: CallOutcome<A> | undefined;
    try {
      outcome = await make();
      return outcome;
    } finally {
      // Remembered before the answer goes out, so a retry right after it finds the answer.
      const answerJson = outcome?.ok ? this.kept(name, outcome.answer) : undefined;
      await this.records
        .finish({ scope: name.scope, key: name.key, token, requestId, ...(answerJson ? { answerJson } : {}) }, trace)
        .catch((error: unknown) =>
          this.logger.warn(
            `idempotency record not finished: ${error instanceof Error ? error.message : String(error)}`,
          ),
        );
    }
  }

  /** A charged answer as its record keeps it (sealed when the name says so). */
  private kept<A extends { charge: Charge }>(name: CallName, answer: A): string {
    const { charge, ...rest } = answer;
    const remembered: Remembered<A> = { charge: rememberedCharge.encode(charge), answer: rest };
    const json = JSON.stringify(remembered);
    return name.sealed ? AnswerSeal.for(name).seal(json) : json;
  }
}

function refused(message: string): { ok: false; error: unknown } {
  return { ok: false, error: httpErrorFor(ErrorCode.IdempotencyConflict, message) };
}
