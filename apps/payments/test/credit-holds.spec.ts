import {
  type AdminKeyCreated,
  type AdminReconcileReply,
  type BalanceReply,
  type BatchReply,
  type CaptureReply,
  type DebitRequest,
  ErrorCode,
  hashApiKey,
  type HoldRequest,
  PRICE_PER_CALL_MICROS,
  type ReleaseReply,
  type ReserveReply,
  Subject,
} from '@appcat/contracts';
import { NatsRpcClient, type RpcCallError, TypedRpc } from '@appcat/microservice';
import { jest } from '@jest/globals';
import { CreditService } from '../src/credits/credit-service.js';
import { startPaymentsCluster, type PaymentsCluster } from './support/payments-cluster.js';
import { eventually } from './support/test-config.js';

jest.setTimeout(60_000);

const PRICE = PRICE_PER_CALL_MICROS;
/** Short, so a hold never captured lapses within the test; the sweeper runs every second. */
const HOLD_MS = 1_000;

describe('credit holds (payments.credits.reserve / capture / release), two payments replicas', () => {
  let cluster: PaymentsCluster;
  /** Two gateways' NATS clients, each coalescing its requests as the gateway does. */
  const gateways: { client: NatsRpcClient; rpc: TypedRpc<RpcCallError> }[] = [];

  beforeAll(async () => {
    cluster = await startPaymentsCluster('credit_holds', 2, { CREDIT_HOLD_MS: String(HOLD_MS) });
    for (let i = 0; i < 2; i++) {
      const client = await NatsRpcClient.connect(
        { servers: [cluster.nats.url], requestTimeoutMs: 20_000, shutdownGraceMs: 0 },
        `gateway-${i}`,
      );
      gateways.push({ client, rpc: new TypedRpc(client, (error: RpcCallError) => error, { batchMaxItems: 16 }) });
    }
  });

  afterAll(async () => {
    await Promise.all(gateways.map(({ client }) => client.close()));
    await cluster.stop();
  });

  const createKey = (credit: bigint) =>
    cluster.client.call<AdminKeyCreated>(Subject.AdminKeysCreate, { credit: credit.toString() });
  const request = (key: string, requestId = 'holds-test'): DebitRequest => ({
    keyHash: hashApiKey(key),
    amount: PRICE.toString(),
    route: 'apps.get',
    requestId,
  });
  const reserve = (key: string) => cluster.client.call<ReserveReply>(Subject.CreditsReserve, request(key));
  const holdOf = (key: string, reserved: ReserveReply): HoldRequest => ({
    ...request(key),
    reservationId: reserved.reservationId,
  });
  const balanceOf = async (key: string) =>
    BigInt((await cluster.client.call<BalanceReply>(Subject.CreditsBalance, { keyHash: hashApiKey(key) })).balance);
  const debitRows = async (keyId: string) =>
    (
      await cluster.db.pool.query<{ id: string; amount_micros: string }>(
        'SELECT id, amount_micros::text FROM credit_debits WHERE api_key_id = $1',
        [keyId],
      )
    ).rows;
  const reconcile = (waitMs: number) =>
    cluster.client.call<AdminReconcileReply>(Subject.AdminReconcile, { waitMs }, 30_000);

  it('a captured hold is one debit, under the reservation id; capturing or releasing it again changes nothing', async () => {
    const key = await createKey(10n * PRICE);
    const reserved = await reserve(key.key);
    expect(reserved.balance).toBe(String(9n * PRICE));
    expect(await balanceOf(key.key)).toBe(9n * PRICE);

    const captured = await cluster.client.call<CaptureReply>(Subject.CreditsCapture, holdOf(key.key, reserved));
    expect(captured).toEqual({ debitId: reserved.reservationId, balance: String(9n * PRICE) });
    await expect(cluster.client.call<ReleaseReply>(Subject.CreditsRelease, holdOf(key.key, reserved))).resolves.toEqual(
      { released: false },
    );
    expect(await balanceOf(key.key)).toBe(9n * PRICE);

    const rows = await eventually(
      () => debitRows(key.id),
      (list) => list.length > 0,
    );
    expect(rows).toEqual([{ id: reserved.reservationId, amount_micros: PRICE.toString() }]);
    expect(await reconcile(10_000)).toMatchObject({ exact: true, openHolds: 0, differences: [] });
  });

  it('a released hold gives the whole price back once, and Postgres never sees it', async () => {
    const key = await createKey(2n * PRICE);
    const reserved = await reserve(key.key);
    expect(await balanceOf(key.key)).toBe(PRICE);
    const release = () => cluster.client.call<ReleaseReply>(Subject.CreditsRelease, holdOf(key.key, reserved));
    expect(await release()).toEqual({ released: true });
    expect(await release()).toEqual({ released: false });
    expect(await balanceOf(key.key)).toBe(2n * PRICE);
    const reconciled = await reconcile(10_000);
    expect(reconciled).toMatchObject({ exact: true, openHolds: 0 });
    expect(await debitRows(key.id)).toEqual([]);
  });

  it('concurrent reserves across two gateways and two replicas never hold more than the balance', async () => {
    const key = await createKey(37n * PRICE);
    const spies = cluster.apps.map((app) => jest.spyOn(app.get(CreditService), 'batch'));
    let results: Awaited<ReturnType<TypedRpc<RpcCallError>['result']>>[];
    try {
      results = await Promise.all(
        Array.from({ length: 120 }, (_, i) =>
          gateways[i % 2].rpc.result(Subject.CreditsReserve, request(key.key, `burst-${i}`)),
        ),
      );
      // The reserves went as batches, to both replicas.
      for (const spy of spies) expect(spy.mock.calls.length).toBeGreaterThan(0);
    } finally {
      spies.forEach((spy) => spy.mockRestore());
    }
    const held = results.flatMap((result) => (result.ok ? [result.value as ReserveReply] : []));
    expect(held).toHaveLength(37);
    for (const result of results) if (!result.ok) expect(result.error.code).toBe(ErrorCode.CreditInsufficient);
    const balances = held.map((reply) => BigInt(reply.balance));
    expect(new Set(balances).size).toBe(37);
    expect(Math.min(...balances.map(Number))).toBe(0);
    expect(await balanceOf(key.key)).toBe(0n);

    // With every hold open, the books add up: nothing spent yet, everything held.
    const open = await reconcile(0);
    expect(open.openHolds).toBe(37);
    expect(open.differences).toEqual([
      expect.objectContaining({ id: key.id, status: 'pending', held: String(37n * PRICE), difference: '0' }),
    ]);

    // Capture 20 and release 17, coalesced as the gateway sends them.
    const outcomes = await Promise.all(
      held.map((reply, i) =>
        gateways[i % 2].rpc.request(i < 20 ? Subject.CreditsCapture : Subject.CreditsRelease, holdOf(key.key, reply)),
      ),
    );
    expect(outcomes.slice(20)).toEqual(Array.from({ length: 17 }, () => ({ released: true })));
    expect(await balanceOf(key.key)).toBe(17n * PRICE);
    expect(await reconcile(10_000)).toMatchObject({ exact: true, openHolds: 0, differences: [] });
    const rows = await debitRows(key.id);
    expect(rows.map((row) => row.id).sort()).toEqual(
      held
        .slice(0, 20)
        .map((reply) => reply.reservationId)
        .sort(),
    );
  });

  it('a hold never captured nor released is given back by itself within seconds', async () => {
    const key = await createKey(3n * PRICE);
    await reserve(key.key);
    expect(await balanceOf(key.key)).toBe(2n * PRICE);
    const restored = await eventually(
      () => balanceOf(key.key),
      (balance) => balance === 3n * PRICE,
      10_000,
    );
    expect(restored).toBe(3n * PRICE);
    expect(await reconcile(10_000)).toMatchObject({ exact: true, openHolds: 0 });
    expect(await debitRows(key.id)).toEqual([]);
  });

  it('a hold captured after it lapsed is charged afresh if the balance allows, else refused with nothing charged', async () => {
    const key = await createKey(PRICE);
    const first = await reserve(key.key);
    await eventually(
      () => balanceOf(key.key),
      (balance) => balance === PRICE,
      10_000,
    );
    // Lapsed and given back: the capture still finds the price on the key and takes it, once.
    await expect(cluster.client.call<CaptureReply>(Subject.CreditsCapture, holdOf(key.key, first))).resolves.toEqual({
      debitId: first.reservationId,
      balance: '0',
    });

    const other = await createKey(PRICE);
    const second = await reserve(other.key);
    await eventually(
      () => balanceOf(other.key),
      (balance) => balance === PRICE,
      10_000,
    );
    // Spent meanwhile by another call: the lapsed hold cannot be paid, and nothing is charged for it.
    await cluster.client.call(Subject.CreditsDebit, request(other.key));
    await expect(cluster.client.request(Subject.CreditsCapture, holdOf(other.key, second))).resolves.toMatchObject({
      ok: false,
      error: { code: ErrorCode.CreditInsufficient },
    });
    expect(await balanceOf(other.key)).toBe(0n);
    expect(await reconcile(10_000)).toMatchObject({ exact: true, openHolds: 0 });
    expect(await debitRows(key.id)).toHaveLength(1);
    expect(await debitRows(other.id)).toHaveLength(1);
  });

  it('revocation wins over an open hold: its capture is refused and the hold given back', async () => {
    const key = await createKey(5n * PRICE);
    const reserved = await reserve(key.key);
    await cluster.client.call(Subject.AdminKeysRevoke, { ref: key.id });
    await expect(cluster.client.request(Subject.CreditsCapture, holdOf(key.key, reserved))).resolves.toMatchObject({
      ok: false,
      error: { code: ErrorCode.CreditKeyRevoked },
    });
    expect(await reconcile(10_000)).toMatchObject({ exact: true, openHolds: 0 });
    expect(await debitRows(key.id)).toEqual([]);
  });

  it('answers every item of a batch on its own', async () => {
    const [rich, empty] = await Promise.all([createKey(10n * PRICE), createKey(0n)]);
    const reserved = await cluster.client.call<BatchReply<ReserveReply>>(Subject.CreditsReserveBatch, {
      items: [request(rich.key), request(empty.key), { nonsense: true }, request(rich.key)],
    });
    expect(reserved.results.map((result) => (result.ok ? 'ok' : result.error.code))).toEqual([
      'ok',
      ErrorCode.CreditInsufficient,
      ErrorCode.InvalidArgument,
      'ok',
    ]);
    const holds = reserved.results.flatMap((result) => (result.ok ? [holdOf(rich.key, result.value)] : []));
    const released = await cluster.client.call<BatchReply<ReleaseReply>>(Subject.CreditsReleaseBatch, {
      items: [...holds, { ...holds[0], reservationId: 'not-a-reservation' }],
    });
    expect(released.results.map((result) => (result.ok ? result.value.released : result.error.code))).toEqual([
      true,
      true,
      ErrorCode.InvalidArgument,
    ]);
    expect(await balanceOf(rich.key)).toBe(10n * PRICE);
  });
});
