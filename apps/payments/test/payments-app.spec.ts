import {
  type AdminKeyCreated,
  type AdminKeyDetails,
  type AdminKeyList,
  type BalanceReply,
  type DebitReply,
  ErrorCode,
  PRICE_PER_CALL_MICROS,
  Subject,
} from '@appcat/contracts';
import { jest } from '@jest/globals';
import { CreditService } from '../src/credits/credit-service.js';
import { hashApiKey } from '@appcat/contracts';
import { KeyService } from '../src/keys/key-service.js';
import type { Reply } from './support/nats-requester.js';
import { startPaymentsCluster, type PaymentsCluster } from './support/payments-cluster.js';
import { eventually, testKeyspace } from './support/test-config.js';

describe('payments over NATS, two replicas sharing Redis and Postgres', () => {
  let cluster: PaymentsCluster;

  beforeAll(async () => {
    cluster = await startPaymentsCluster('app', 2);
  });

  afterAll(() => cluster.stop());

  const createKey = (credit: bigint) =>
    cluster.client.call<AdminKeyCreated>(Subject.AdminKeysCreate, { credit: credit.toString() });
  const debit = (key: string, route = 'apps.search') =>
    cluster.client.request<DebitReply>(Subject.CreditsDebit, {
      keyHash: hashApiKey(key),
      amount: PRICE_PER_CALL_MICROS.toString(),
      route,
      requestId: 'test',
    });
  const balance = (key: string) =>
    cluster.client.request<BalanceReply>(Subject.CreditsBalance, { keyHash: hashApiKey(key) });
  const errorCode = (reply: Reply<unknown>) => (reply.ok ? 'ok' : reply.error.code);
  const postgresKey = async (id: string) => {
    const { rows } = await cluster.db.pool.query<{
      topped_up_micros: string;
      spent_micros: string;
      revoked_at: Date | null;
    }>('SELECT topped_up_micros, spent_micros, revoked_at FROM api_keys WHERE id = $1', [id]);
    return {
      toppedUp: BigInt(rows[0].topped_up_micros),
      spent: BigInt(rows[0].spent_micros),
      revokedAt: rows[0].revoked_at,
    };
  };
  /** Counts the debit requests each replica handled. */
  const spyOnReplicas = () => cluster.apps.map((app) => jest.spyOn(app.get(CreditService), 'debit'));

  it('lets exactly 100 of 150 concurrent calls through on a key worth 100 calls', async () => {
    const created = await createKey(100n * PRICE_PER_CALL_MICROS);
    // Start cold: both replicas must load the key from Postgres during the burst.
    await cluster.redis.del(testKeyspace.keyOf(hashApiKey(created.key)));
    const spies = spyOnReplicas();
    try {
      const replies = await Promise.all(Array.from({ length: 150 }, () => debit(created.key)));
      const codes = replies.map(errorCode);
      expect(codes.filter((code) => code === 'ok')).toHaveLength(100);
      expect(codes.filter((code) => code === ErrorCode.CreditInsufficient)).toHaveLength(50);
      const debitIds = new Set(replies.flatMap((reply) => (reply.ok ? [reply.value.debitId] : [])));
      expect(debitIds.size).toBe(100);
      // Both replicas served part of the burst.
      for (const spy of spies) expect(spy.mock.calls.length).toBeGreaterThan(0);
      expect(spies[0].mock.calls.length + spies[1].mock.calls.length).toBe(150);
    } finally {
      spies.forEach((spy) => spy.mockRestore());
    }
    expect(await balance(created.key)).toEqual({ ok: true, value: { balance: '0' } });
    const flushed = await eventually(
      () => postgresKey(created.id),
      (key) => key.spent === 300_000n,
    );
    expect(flushed.spent).toBe(100n * PRICE_PER_CALL_MICROS);
    const { rows } = await cluster.db.pool.query<{ n: string; total: string }>(
      'SELECT count(*) AS n, sum(amount_micros) AS total FROM credit_debits WHERE api_key_id = $1',
      [created.id],
    );
    expect(rows[0]).toEqual({ n: '100', total: '300000' });
  });

  it('refuses an unknown key, and remembers it for a while without asking Postgres again', async () => {
    const key = 'ak_thisKeyWasNeverIssued1111111111111111111';
    expect(errorCode(await debit(key))).toBe(ErrorCode.CreditKeyUnknown);
    expect(await cluster.redis.exists(testKeyspace.unknownMarkerOf(hashApiKey(key)))).toBe(1);
    expect(errorCode(await debit(key))).toBe(ErrorCode.CreditKeyUnknown);
    expect(errorCode(await balance(key))).toBe(ErrorCode.CreditKeyUnknown);
  });

  it('refuses malformed requests with INVALID_ARGUMENT and debits nothing', async () => {
    const created = await createKey(10_000n);
    const keyHash = hashApiKey(created.key);
    for (const request of [
      { keyHash: 'ABC', amount: '3000', route: 'r' },
      { keyHash, amount: 3000, route: 'r' },
      { keyHash, amount: '3000.5', route: 'r' },
      { keyHash, amount: '0', route: 'r' },
      { keyHash, amount: '3000' },
    ]) {
      expect(errorCode(await cluster.client.request(Subject.CreditsDebit, request))).toBe(ErrorCode.InvalidArgument);
    }
    expect(await balance(created.key)).toEqual({ ok: true, value: { balance: '10000' } });
  });

  it('refuses malformed payloads on the x402, idempotency and admin subjects with INVALID_ARGUMENT, naming the field', async () => {
    const offer = { price: '3000', networks: 'standard' };
    const resource = { url: 'http://localhost/api/apps/1', description: 'An app', mimeType: 'application/json' };
    const refused: [string, unknown, string][] = [
      [Subject.X402Accepts, { offer: { price: '3000', networks: 'all' } }, 'offer.networks'],
      [Subject.X402Authorize, { paymentSignature: 'x', offer, resource, route: 'apps.get' }, 'requestId'],
      [
        Subject.X402Settle,
        { paymentSignature: 'x', hold: {}, resource, route: 'apps.get', requestId: 'r' },
        'hold.paymentId',
      ],
      [Subject.X402Release, {}, 'hold'],
      [Subject.CreditsTopUp, { paymentSignature: 'x', amount: '1', resource, requestId: 'r' }, 'amount'],
      [Subject.IdempotencyBegin, { scope: 'x402', key: 'k', requestId: 'r' }, 'fingerprint'],
      [Subject.IdempotencyFinish, { scope: 'x402', key: 'k', token: 7, requestId: 'r' }, 'token'],
      [Subject.AdminKeysCreate, 'credit', 'payload'],
      [Subject.AdminKeysShow, { ref: 42 }, 'ref'],
      [Subject.AdminReconcile, { waitMs: 1.5 }, 'waitMs'],
    ];
    for (const [subject, payload, field] of refused) {
      const reply = await cluster.client.request(subject, payload);
      expect({ subject, error: reply.ok ? undefined : reply.error }).toEqual({
        subject,
        error: { code: ErrorCode.InvalidArgument, message: expect.stringMatching(new RegExp(`^${field} must `)) },
      });
    }
  });

  it('makes a revocation effective on the very next call on every replica, and across a Redis loss', async () => {
    const created = await createKey(1_000_000n);
    expect(errorCode(await debit(created.key))).toBe('ok');
    const revoked = await cluster.client.call<AdminKeyDetails>(Subject.AdminKeysRevoke, { ref: created.prefix });
    expect(revoked).toMatchObject({ id: created.id, status: 'revoked', balance: '997000' });
    expect((await postgresKey(created.id)).revokedAt).not.toBeNull();
    const spies = spyOnReplicas();
    try {
      const replies = await Promise.all(Array.from({ length: 20 }, () => debit(created.key)));
      expect(new Set(replies.map(errorCode))).toEqual(new Set([ErrorCode.CreditKeyRevoked]));
      for (const spy of spies) expect(spy.mock.calls.length).toBeGreaterThan(0);
    } finally {
      spies.forEach((spy) => spy.mockRestore());
    }
    expect(errorCode(await balance(created.key))).toBe(ErrorCode.CreditKeyRevoked);
    await cluster.redis.flushall();
    expect(errorCode(await debit(created.key))).toBe(ErrorCode.CreditKeyRevoked);
    // Revoking again is harmless and keeps the first revocation time.
    const again = await cluster.client.call<AdminKeyDetails>(Subject.AdminKeysRevoke, { ref: created.id });
    expect(again.revokedAt).toBe(revoked.revokedAt);
  });

  it('never leaves a key with less credit than top-ups minus successful debits when Redis loses everything mid-run', async () => {
    const keys = await Promise.all([createKey(150_000n), createKey(150_000n), createKey(150_000n)]);
    const succeeded = new Map(keys.map((key) => [key.id, [] as string[]]));
    const beforeLoss = new Map(keys.map((key) => [key.id, [] as string[]]));
    const afterLoss = new Map(keys.map((key) => [key.id, [] as string[]]));
    const recordedIds = async (keyId: string) =>
      (
        await cluster.db.pool.query<{ id: string }>('SELECT id FROM credit_debits WHERE api_key_id = $1', [keyId])
      ).rows.map((row) => row.id);
    let lost = false;
    const run = async (key: AdminKeyCreated) => {
      for (let i = 0; i < 40; i += 1) {
        const startedAfterLoss = lost;
        const reply = await debit(key.key);
        if (reply.ok) {
          succeeded.get(key.id)!.push(reply.value.debitId);
          (startedAfterLoss ? afterLoss : beforeLoss).get(key.id)!.push(reply.value.debitId);
        } else expect(reply.error.code).toBe(ErrorCode.CreditInsufficient);
      }
    };
    const runs = keys.map(run);
    await eventually(
      async () => [...succeeded.values()].reduce((n, ids) => n + ids.length, 0),
      (n) => n >= 45,
      5_000,
    );
    // What Postgres had just before the loss: only debits missing from it can be forgiven.
    const recordedBeforeLoss = new Map(
      await Promise.all(keys.map(async (key) => [key.id, await recordedIds(key.id)] as const)),
    );
    await cluster.redis.flushall();
    lost = true;
    await Promise.all(runs);

    let forgivenTotal = 0n;
    for (const key of keys) {
      const spentInCalls = BigInt(succeeded.get(key.id)!.length) * PRICE_PER_CALL_MICROS;
      const reply = await balance(key.key);
      if (!reply.ok) throw new Error(reply.error.code);
      // The invariant: a Redis loss may forgive debits, never take credit.
      const forgiven = BigInt(reply.value.balance) - (150_000n - spentInCalls);
      expect(forgiven).toBeGreaterThanOrEqual(0n);
      // The bound: at most the debits made before the loss that Postgres did not have yet.
      const unflushedAtLoss = beforeLoss.get(key.id)!.filter((id) => !recordedBeforeLoss.get(key.id)!.includes(id));
      expect(forgiven).toBeLessThanOrEqual(BigInt(unflushedAtLoss.length) * PRICE_PER_CALL_MICROS);
      forgivenTotal += forgiven;
      // Every debit made after the loss reaches Postgres; everything Postgres has is a real debit, counted once.
      const recorded = await eventually(
        () => recordedIds(key.id),
        (ids) => afterLoss.get(key.id)!.every((id) => ids.includes(id)),
      );
      expect(afterLoss.get(key.id)!.every((id) => recorded.includes(id))).toBe(true);
      expect(recorded.every((id) => succeeded.get(key.id)!.includes(id))).toBe(true);
      expect((await postgresKey(key.id)).spent).toBe(BigInt(recorded.length) * PRICE_PER_CALL_MICROS);
    }
    console.log(`Redis loss mid-run forgave ${forgivenTotal} µUSD of unflushed debits across ${keys.length} keys`);
  });

  describe('admin', () => {
    it('creates a key with no credit, shown once and stored only as a hash', async () => {
      const created = await createKey(0n);
      expect(created.key).toMatch(/^ak_[1-9A-HJ-NP-Za-km-z]{40,44}$/);
      expect(created.prefix).toBe(created.key.slice(0, 12));
      expect(created.balance).toBe('0');
      const { rows } = await cluster.db.pool.query('SELECT * FROM api_keys WHERE id = $1', [created.id]);
      expect(rows[0].key_hash).toBe(hashApiKey(created.key));
      expect(JSON.stringify(rows)).not.toContain(created.key);
      const shown = await cluster.client.call<AdminKeyDetails>(Subject.AdminKeysShow, { ref: created.key });
      expect(shown).toMatchObject({
        id: created.id,
        status: 'active',
        toppedUp: '0',
        spent: '0',
        balance: '0',
        topUps: [],
      });
      expect(errorCode(await debit(created.key))).toBe(ErrorCode.CreditInsufficient);
    });

    it('records the opening credit as an admin top-up with a unique reference', async () => {
      const created = await createKey(5_000_000n);
      const shown = await cluster.client.call<AdminKeyDetails>(Subject.AdminKeysShow, { ref: created.id });
      expect(shown.toppedUp).toBe('5000000');
      expect(shown.topUps).toHaveLength(1);
      expect(shown.topUps[0]).toMatchObject({ amount: '5000000', method: 'admin' });
      expect(shown.topUps[0].reference).toMatch(/^admin:[0-9a-f-]{36}$/);
    });

    it('rejects credit that is not a non-negative micro-USD integer string', async () => {
      for (const credit of ['-1', '1.5', 5, '', '10000000001', null]) {
        const reply = await cluster.client.request(Subject.AdminKeysCreate, { credit });
        expect(errorCode(reply)).toBe(ErrorCode.InvalidArgument);
      }
    });

    it('names keys by key, prefix or id and reports unknown, ambiguous and malformed names', async () => {
      const created = await createKey(1_000_000n);
      for (const ref of [created.key, created.prefix, created.prefix.slice(0, 9), created.id]) {
        expect((await cluster.client.call<AdminKeyDetails>(Subject.AdminKeysShow, { ref })).id).toBe(created.id);
      }
      expect(errorCode(await cluster.client.request(Subject.AdminKeysShow, { ref: 'ak_zzzzzzzzz' }))).toBe(
        ErrorCode.AdminKeyNotFound,
      );
      expect(
        errorCode(await cluster.client.request(Subject.AdminKeysShow, { ref: '00000000-0000-4000-8000-000000000000' })),
      ).toBe(ErrorCode.AdminKeyNotFound);
      for (const ref of ['hello', 'ak_', 'ak_0OIl', 42]) {
        expect(errorCode(await cluster.client.request(Subject.AdminKeysRevoke, { ref }))).toBe(
          ErrorCode.InvalidArgument,
        );
      }
      // Another key that happens to share the display prefix.
      await cluster.db.pool.query('INSERT INTO api_keys (key_hash, prefix) VALUES ($1, $2)', [
        hashApiKey('ak_other'),
        created.prefix,
      ]);
      expect(errorCode(await cluster.client.request(Subject.AdminKeysShow, { ref: created.prefix }))).toBe(
        ErrorCode.AdminKeyAmbiguous,
      );
      expect((await cluster.client.call<AdminKeyDetails>(Subject.AdminKeysShow, { ref: created.key })).id).toBe(
        created.id,
      );
    });

    it('lists keys with their live balances', async () => {
      const created = await createKey(9_000n);
      await debit(created.key);
      const list = await cluster.client.call<AdminKeyList>(Subject.AdminKeysList, {});
      const listed = list.keys.find((key) => key.id === created.id);
      expect(listed).toMatchObject({ prefix: created.prefix, status: 'active', toppedUp: '9000', balance: '6000' });
      expect(listed).not.toHaveProperty('topUps');
    });
  });

  describe('top-ups', () => {
    const keyService = () => cluster.apps[0].get(KeyService);

    it('credits a payment once however often it is submitted, on top of what Redis already spent', async () => {
      const created = await createKey(1_000_000n);
      await debit(created.key);
      const first = await keyService().topUp(created.id, 2_000_000n, 'x402', 'x402:settlement-1');
      expect(first.credited).toBe(true);
      expect(first.balance).toBe(2_997_000n);
      const again = await keyService().topUp(created.id, 2_000_000n, 'x402', 'x402:settlement-1');
      expect(again.credited).toBe(false);
      expect(again.topUp.id).toBe(first.topUp.id);
      expect(again.balance).toBe(2_997_000n);
      expect(await balance(created.key)).toEqual({ ok: true, value: { balance: '2997000' } });
      expect((await postgresKey(created.id)).toppedUp).toBe(3_000_000n);
    });

    it('refuses a reused reference, an amount below the minimum, and revoked or unknown keys', async () => {
      const created = await createKey(1_000_000n);
      await keyService().topUp(created.id, 1_000_000n, 'x402', 'x402:settlement-2');
      await expect(keyService().topUp(created.id, 5_000_000n, 'x402', 'x402:settlement-2')).rejects.toMatchObject({
        code: ErrorCode.InvalidArgument,
      });
      await expect(keyService().topUp(created.id, 999_999n, 'x402', 'x402:small')).rejects.toMatchObject({
        code: ErrorCode.InvalidArgument,
      });
      await expect(
        keyService().topUp('00000000-0000-4000-8000-000000000000', 1_000_000n, 'x402', 'x402:nobody'),
      ).rejects.toMatchObject({
        code: ErrorCode.CreditKeyUnknown,
      });
      await cluster.client.call(Subject.AdminKeysRevoke, { ref: created.id });
      await expect(keyService().topUp(created.id, 1_000_000n, 'x402', 'x402:late')).rejects.toMatchObject({
        code: ErrorCode.CreditKeyRevoked,
      });
      expect((await postgresKey(created.id)).toppedUp).toBe(2_000_000n);
    });

    it('heals a top-up that reached Postgres but not Redis at the next refused call', async () => {
      const created = await createKey(3_000n);
      expect(errorCode(await debit(created.key))).toBe('ok');
      // As if the sync after the commit had failed: Postgres knows the top-up, Redis does not.
      await cluster.db.pool.query('UPDATE api_keys SET topped_up_micros = topped_up_micros + 6000 WHERE id = $1', [
        created.id,
      ]);
      expect(await debit(created.key)).toMatchObject({ ok: true, value: { balance: '3000' } });
    });
  });
});
