import { ErrorCode, type X402Receipt } from '@appcat/contracts';
import { Injectable, Logger } from '@nestjs/common';
import { HttpError } from '../errors/http-error.js';
import { httpErrorFor } from '../errors/http-status.js';
import { AnswerSeal } from './answer-seal.js';
import type { CallName } from './call-names.js';
import { IdempotencyClient } from './idempotency.client.js';

/** How long a duplicate waits for the first call with its name to finish before it is told to retry. */
const WAIT_MS = 30_000;
const POLL_MS = 50;

/** A charge as remembered: a debit with the balance it left (µUSD as text), or a settlement's receipt. */
export type RememberedCharge = { method: 'credits'; balance: string } | { method: 'x402'; receipt: X402Receipt };

/** What a charged call delivered: its data, or the error it ended with after the charge. */
export interface RememberedAnswer<T> {
  charge: RememberedCharge;
  answer?: T;
  error?: { status: number; message: string; headers: Record<string, string> };
}

/**
 * Runs a call under a name (Idempotency-Key, x402 payment-identifier) so that a retry gets the first
 * answer again instead of paying twice. The record is claimed before anything is charged, atomically
 * across every replica (payments keeps it in Redis); a duplicate arriving while the first is running
 * waits for its answer. Only a charged call is remembered, with what it delivered (the data and the
 * charge its headers are made from, or the error it ended with after the charge). A call that charged
 * nothing (refused key or payment, upstream known down) forgets its record: its retry is a new call.
 * A name marked `sealed` has its answer kept encrypted (AnswerSeal), openable only by a retry with the
 * same name and fingerprint.
 */
@Injectable()
export class RememberedCalls {
  private readonly logger = new Logger('RememberedCalls');

  constructor(private readonly records: IdempotencyClient) {}

  /**
   * @param make makes the call, telling `charged` of the charge as soon as it is made.
   * @param replay turns a remembered answer back into the call's result (and tells the caller of its charge).
   */
  async run<T>(
    name: CallName,
    requestId: string,
    make: (charged: (charge: RememberedCharge) => void) => Promise<T>,
    replay: (remembered: RememberedAnswer<T>) => T,
  ): Promise<T> {
    const deadline = Date.now() + WAIT_MS;
    for (;;) {
      const record = await this.records.begin({
        scope: name.scope,
        key: name.key,
        fingerprint: name.fingerprint,
        requestId,
      });
      switch (record.state) {
        case 'conflict':
          throw httpErrorFor(
            ErrorCode.IdempotencyConflict,
            name.label === 'Idempotency-Key'
              ? 'Idempotency-Key was used for another request'
              : 'payment-identifier was used with another payment',
          );
        case 'done-unkept':
          throw httpErrorFor(
            ErrorCode.IdempotencyConflict,
            `the first call with this ${name.label} was made and charged, but its answer was too large to remember`,
          );
        case 'done':
          return replay(JSON.parse(this.opened(name, record.answerJson)) as RememberedAnswer<T>);
        case 'in-flight':
          if (Date.now() > deadline)
            throw httpErrorFor(
              ErrorCode.IdempotencyConflict,
              `the first call with this ${name.label} is still running; retry shortly`,
            );
          await new Promise((resolve) => setTimeout(resolve, POLL_MS));
          continue;
        case 'claimed':
          return this.makeClaimed(name, record.token, requestId, make);
      }
    }
  }

  /** A remembered answer as JSON text: a sealed one opened with the name and fingerprint it was sealed under. */
  private opened(name: CallName, answerJson: string): string {
    if (!name.sealed) return answerJson;
    const opened = AnswerSeal.for(name).open(answerJson);
    if (opened === undefined)
      throw httpErrorFor(
        ErrorCode.IdempotencyConflict,
        `the first call with this ${name.label} was made and charged, but its remembered answer cannot be opened`,
      );
    return opened;
  }

  private async makeClaimed<T>(
    name: CallName,
    token: string,
    requestId: string,
    make: (charged: (charge: RememberedCharge) => void) => Promise<T>,
  ): Promise<T> {
    let charge: RememberedCharge | undefined;
    let remembered: RememberedAnswer<T> | undefined;
    try {
      const answer = await make((made) => (charge = made));
      if (charge) remembered = { charge, answer };
      return answer;
    } catch (error) {
      if (charge && error instanceof HttpError)
        remembered = { charge, error: { status: error.status, message: error.message, headers: error.headers } };
      throw error;
    } finally {
      // Remembered before the answer goes out, so a retry right after it finds the answer.
      const answerJson =
        remembered &&
        (name.sealed ? AnswerSeal.for(name).seal(JSON.stringify(remembered)) : JSON.stringify(remembered));
      await this.records
        .finish({ scope: name.scope, key: name.key, token, requestId, ...(answerJson ? { answerJson } : {}) })
        .catch((error: unknown) =>
          this.logger.warn(
            `idempotency record not finished: ${error instanceof Error ? error.message : String(error)}`,
          ),
        );
    }
  }
}
