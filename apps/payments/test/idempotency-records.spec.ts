/*
 * The idempotency records against a real Redis: claim, duplicates, conflicts, answers, release, the
 * bounds (TTL, answer size) and the key layout (one record, one Redis Cluster hash slot).
 */
import { type ManagedProcess, startRedisServer } from '@appcat/testing';
import { Redis } from 'ioredis';
import { IdempotencyRecords, recordKey } from '../src/idempotency/idempotency-records.js';

describe('idempotency records', () => {
  let server: ManagedProcess;
  let redis: Redis;
  let records: IdempotencyRecords;
  let n = 0;
  const name = () => ({ scope: 'key:abc', key: `k-${++n}`, requestId: 'r' });

  beforeAll(async () => {
    server = await startRedisServer();
    redis = new Redis(server.url);
    records = new IdempotencyRecords(redis, { ttlMs: 86_400_000, leaseMs: 120_000, maxAnswerBytes: 1024 });
  });

  afterAll(async () => {
    redis.disconnect();
    await server.stop();
  });

  it('a new name is claimed for the lease; the same call meanwhile is in flight; another call is a conflict', async () => {
    const record = name();
    const claim = await records.begin({ ...record, fingerprint: 'f1' });
    expect(claim).toEqual({ state: 'claimed', token: expect.any(String) });
    expect(await records.begin({ ...record, fingerprint: 'f1' })).toEqual({ state: 'in-flight' });
    expect(await records.begin({ ...record, fingerprint: 'f2' })).toEqual({ state: 'conflict' });
    const ttl = await redis.pttl(recordKey(record));
    expect(ttl).toBeGreaterThan(110_000);
    expect(ttl).toBeLessThanOrEqual(120_000);
  });

  it('a finished call answers every later copy with its answer, kept for the TTL; only the claim holder can finish it', async () => {
    const record = name();
    const claim = await records.begin({ ...record, fingerprint: 'f' });
    if (claim.state !== 'claimed') throw new Error('not claimed');
    expect(await records.finish({ ...record, token: 'someone-else', answerJson: '{"x":2}' })).toEqual({
      stored: false,
    });
    expect(await records.finish({ ...record, token: claim.token, answerJson: '{"x":1}' })).toEqual({ stored: true });
    expect(await records.begin({ ...record, fingerprint: 'f' })).toEqual({ state: 'done', answerJson: '{"x":1}' });
    expect(await records.begin({ ...record, fingerprint: 'g' })).toEqual({ state: 'conflict' });
    expect(await redis.pttl(recordKey(record))).toBeGreaterThan(86_000_000);
  });

  it('a call that charged nothing releases its name: the retry is claimed anew', async () => {
    const record = name();
    const claim = await records.begin({ ...record, fingerprint: 'f' });
    if (claim.state !== 'claimed') throw new Error('not claimed');
    expect(await records.finish({ ...record, token: claim.token })).toEqual({ stored: false });
    expect(await records.begin({ ...record, fingerprint: 'other' })).toMatchObject({ state: 'claimed' });
  });

  it('an answer beyond the size bound is remembered as made, without its data', async () => {
    const record = name();
    const claim = await records.begin({ ...record, fingerprint: 'f' });
    if (claim.state !== 'claimed') throw new Error('not claimed');
    await records.finish({ ...record, token: claim.token, answerJson: JSON.stringify({ data: 'x'.repeat(2000) }) });
    expect(await records.begin({ ...record, fingerprint: 'f' })).toEqual({ state: 'done-unkept' });
    expect((await redis.hget(recordKey(record), 'answer'))!.length).toBeLessThan(16);
  });

  it('one record is one key inside one {…} hash tag, whatever the name', () => {
    const key = recordKey({ scope: 'x402', key: 'pay_{weird}:name' });
    expect(key).toMatch(/^idem:\{x402:[A-Za-z0-9_-]{43}\}$/);
  });

  it('with Redis away the call goes ahead unprotected (claimed without a token), and finishing it stores nothing', async () => {
    const down = new Redis({ port: 1, lazyConnect: true, maxRetriesPerRequest: 0, enableOfflineQueue: false });
    const unavailable = new IdempotencyRecords(down, { ttlMs: 1000, leaseMs: 1000, maxAnswerBytes: 1024 });
    expect(await unavailable.begin({ ...name(), fingerprint: 'f' })).toEqual({ state: 'claimed', token: '' });
    expect(await unavailable.finish({ ...name(), token: '', answerJson: '{}' })).toEqual({ stored: false });
    down.disconnect();
  });
});
