import {
  type IdempotencyBeginReply,
  type IdempotencyBeginRequest,
  type IdempotencyFinishReply,
  type IdempotencyFinishRequest,
} from '@appcat/contracts';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { createHash, randomUUID } from 'node:crypto';
import type { RedisClient } from '@appcat/redis';
import { IDEMPOTENCY_SETTINGS, PAYMENTS_REDIS } from '../payments-tokens.js';

export interface IdempotencySettings {
  /** How long a finished call's answer is remembered, ms (IDEMPOTENCY_TTL_SECONDS). */
  ttlMs: number;
  /** How long a claim without an answer holds (a gateway that died mid-call frees it after this), ms. */
  leaseMs: number;
  /** The largest answer remembered, bytes; a larger one is remembered as made, without its answer. */
  maxAnswerBytes: number;
}

/**
 * KEYS: record. ARGV: fingerprint, token, leaseMs. A new name is claimed for the lease; a known one
 * answers conflict (another fingerprint), done (its answer) or in-flight.
 */
const BEGIN_SCRIPT = `
local r = redis.call('HMGET', KEYS[1], 'fp', 'answer')
if not r[1] then
  redis.call('HSET', KEYS[1], 'fp', ARGV[1], 'token', ARGV[2])
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
  return {'claimed', ''}
end
if r[1] ~= ARGV[1] then return {'conflict', ''} end
if r[2] then return {'done', r[2]} end
return {'in-flight', ''}
`;

/** KEYS: record. ARGV: token, answer ('' releases the claim), ttlMs. Only the claim's holder may finish it. */
const FINISH_SCRIPT = `
if redis.call('HGET', KEYS[1], 'token') ~= ARGV[1] then return 0 end
if ARGV[2] == '' then
  redis.call('DEL', KEYS[1])
  return 1
end
redis.call('HSET', KEYS[1], 'answer', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
`;

/** Stored in place of an answer larger than the bound. */
const UNKEPT = '\u0000unkept';

interface IdempotencyCommands {
  idempotencyBegin(record: string, fingerprint: string, token: string, leaseMs: string): Promise<[string, string]>;
  idempotencyFinish(record: string, token: string, answer: string, ttlMs: string): Promise<number>;
}

/**
 * Remembered answers, one Redis hash per (scope, name), so every gateway and payments replica sees the
 * same record: claiming it is atomic (one script), so of two concurrent duplicates one makes the call
 * and the other waits for its answer. Redis holds them with a TTL and a bounded size; losing Redis
 * forgets records (a retry is then a new call) and never touches credit, which is in Postgres.
 */
@Injectable()
export class IdempotencyRecords {
  private readonly logger = new Logger('IdempotencyRecords');
  private readonly redis: RedisClient & IdempotencyCommands;
  private lastWarning = 0;

  constructor(
    @Inject(PAYMENTS_REDIS) redis: RedisClient,
    @Inject(IDEMPOTENCY_SETTINGS) private readonly settings: IdempotencySettings,
  ) {
    redis.defineCommand('idempotencyBegin', { numberOfKeys: 1, lua: BEGIN_SCRIPT });
    redis.defineCommand('idempotencyFinish', { numberOfKeys: 1, lua: FINISH_SCRIPT });
    this.redis = redis as RedisClient & IdempotencyCommands;
  }

  async begin(request: IdempotencyBeginRequest): Promise<IdempotencyBeginReply> {
    const token = randomUUID();
    let state: string;
    let answer: string;
    try {
      [state, answer] = await this.redis.idempotencyBegin(
        recordKey(request),
        request.fingerprint,
        token,
        String(this.settings.leaseMs),
      );
    } catch (error) {
      // Without Redis no record can be kept: the call goes ahead unprotected (a retry is a new call).
      this.warn(error);
      return { state: 'claimed', token: '' };
    }
    if (state === 'claimed') return { state, token };
    if (state === 'done') return answer === UNKEPT ? { state: 'done-unkept' } : { state, answerJson: answer };
    return { state: state === 'conflict' ? 'conflict' : 'in-flight' };
  }

  async finish(request: IdempotencyFinishRequest): Promise<IdempotencyFinishReply> {
    if (!request.token) return { stored: false };
    const answer =
      request.answerJson === undefined
        ? ''
        : Buffer.byteLength(request.answerJson) > this.settings.maxAnswerBytes
          ? UNKEPT
          : request.answerJson;
    try {
      const stored = await this.redis.idempotencyFinish(
        recordKey(request),
        request.token,
        answer,
        String(this.settings.ttlMs),
      );
      return { stored: stored === 1 && answer !== '' };
    } catch (error) {
      this.warn(error);
      return { stored: false };
    }
  }

  private warn(error: unknown): void {
    if (Date.now() - this.lastWarning < 30_000) return;
    this.lastWarning = Date.now();
    this.logger.warn(
      `Redis unavailable, idempotency records are not kept: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

/**
 * One Redis key per record, all of it inside one `{…}` hash tag, so a record never spans Redis Cluster
 * slots. The name is hashed: any characters, a bounded key.
 */
export function recordKey(request: { scope: string; key: string }): string {
  return `idem:{${request.scope}:${createHash('sha256').update(request.key).digest('base64url')}}`;
}
