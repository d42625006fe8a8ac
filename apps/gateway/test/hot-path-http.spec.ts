/*
 * The credit-paid hot path's two shortcuts, over HTTP against stand-ins on a private nats-server:
 * the near cache (a hot query skips the catalog hop and the hold: one debit, never skipped) and
 * coalescing (the reservations of one loop turn leave as one batch request, answered item by item).
 */
import { type CatalogRequest, ErrorCode, hashApiKey, Subject } from '@appcat/contracts';
import { GatewayMetrics } from '@appcat/ops';
import { startNatsServer, type ManagedProcess } from '@appcat/testing';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import {
  heldOrDebited,
  serveCredits,
  serveStandIn,
  serveX402Holds,
  STAND_IN_X402_HOLD,
  StandIn,
  startGatewayOnStandIns,
} from './support/stand-ins.js';

const KEY = 'ak_' + 'x'.repeat(43);
const EMPTY_KEY = 'ak_' + 'e'.repeat(43);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What payments answers for one debit or reservation: the empty key is refused, any other is held or charged. */
function debitOne(data: Record<string, unknown>) {
  if (data.keyHash === hashApiKey(EMPTY_KEY)) throw { code: ErrorCode.CreditInsufficient, message: 'topup_required' };
  return heldOrDebited(data);
}

describe('gateway hot path: near cache and coalescing', () => {
  let nats: ManagedProcess;
  let responder: NatsConnection;
  const gateways: NestFastifyApplication[] = [];
  let nearBase: string;
  let offBase: string;
  let coalescingBase: string;
  /** Debits and reservations, each batch's items counted one by one. */
  const debit = new StandIn(debitOne);
  let capture: StandIn;
  const fresh = (data: Record<string, unknown>) => ({
    dataJson: JSON.stringify({ echo: (data as unknown as CatalogRequest).query }),
    source: 'cache',
    ageSeconds: 5,
    ageMs: 5_400,
    freshForMs: 60_000,
  });
  const peek = new StandIn(fresh);
  /** x402 checks (payments.x402.authorize); payments.x402.pay runs the same handler, then answers a receipt. */
  const x402Check = new StandIn(() => STAND_IN_X402_HOLD);
  let payAtOnce: StandIn;
  const fetchStandIn = new StandIn((data) => ({
    dataJson: JSON.stringify({ echo: (data as unknown as CatalogRequest).query }),
  }));

  beforeAll(async () => {
    nats = await startNatsServer();
    responder = await connect({ servers: nats.url });
    ({ capture } = serveCredits(responder, debit));
    serveStandIn(responder, Subject.CatalogPeek, peek);
    serveStandIn(responder, Subject.CatalogFetch, fetchStandIn);
    ({ payAtOnce } = serveX402Holds(responder, x402Check, {
      paymentResponse: 'cmVjZWlwdA==',
      network: 'eip155:8453',
      payer: '0xP',
      transaction: '0xT',
    }));
    const start = async (overrides: Parameters<typeof startGatewayOnStandIns>[2]) => {
      const { app, base } = await startGatewayOnStandIns(nats.url, undefined, overrides);
      gateways.push(app);
      return base;
    };
    nearBase = await start({ nearCacheMs: 1_000 });
    offBase = await start({ nearCacheMs: 0 });
    coalescingBase = await start({ rpcBatchMax: 64, nearCacheMs: 0 });
  });

  afterAll(async () => {
    await Promise.all(gateways.map((app) => app.close()));
    await responder.close();
    await nats.stop();
  });

  beforeEach(() => {
    for (const standIn of [debit, capture, peek, fetchStandIn, x402Check, payAtOnce]) standIn.reset();
  });

  async function paid(base: string, url: string, key = KEY) {
    const res = await fetch(base + url, { headers: { authorization: `Bearer ${key}` } });
    return { status: res.status, headers: Object.fromEntries(res.headers), body: await res.text() };
  }

  describe('near cache', () => {
    it('answers a hot query without the catalog or a hold (one debit), charges every call, and reports the age from the entry’s fetch time', async () => {
      const first = await paid(nearBase, '/api/apps/111');
      const second = await paid(nearBase, '/api/apps/111?country=US');
      expect([first.status, second.status]).toEqual([200, 200]);
      expect(second.body).toBe(first.body);
      expect(peek.calls).toHaveLength(1);
      // The first call held the price and captured it; the second, with the data in hand, debited at once.
      expect(debit.calls).toHaveLength(2);
      expect(capture.calls).toHaveLength(1);
      for (const res of [first, second]) expect(res.headers['x-cache']).toBe('CACHE');
      expect(first.headers.age).toBe('5');
      // Produced 5.4 s before the first request was sent: at least 5 s old, and not more than its wait since.
      expect(Number(second.headers.age)).toBeGreaterThanOrEqual(5);
      // Another query is its own entry.
      await paid(nearBase, '/api/apps/111?country=gb');
      expect(peek.calls).toHaveLength(2);
      // Ops see the reads and what the cache holds: two entries of this echo's size.
      const metrics = await gateways[0].get(GatewayMetrics).registry.metrics();
      expect(metrics).toMatch(/appcat_near_cache_reads_total\{outcome="hit"[^}]*\} 1\n/);
      expect(metrics).toMatch(/appcat_near_cache_reads_total\{outcome="miss"[^}]*\} 2\n/);
      const held = Number(/appcat_near_cache_bytes(?:\{[^}]*\})? (\d+)/.exec(metrics)?.[1]);
      expect(held).toBeGreaterThan(2 * 2 * JSON.stringify(JSON.parse(first.body).data).length);
    });

    it('keeps an answer no longer than the catalog counts it fresh', async () => {
      peek.handler = (data) => ({ ...fresh(data), freshForMs: 50 });
      await paid(nearBase, '/api/apps/222');
      await sleep(100);
      await paid(nearBase, '/api/apps/222');
      expect(peek.calls).toHaveLength(2);
    });

    it('never keeps a stale answer, nor one the catalog does not say is fresh', async () => {
      peek.handler = () => null;
      fetchStandIn.handler = () => ({ dataJson: '{"results":[]}', source: 'stale', ageSeconds: 7200 });
      const stale = [await paid(nearBase, '/api/apps/333'), await paid(nearBase, '/api/apps/333')];
      expect(stale.map((res) => res.headers['x-cache'])).toEqual(['STALE', 'STALE']);
      expect(fetchStandIn.calls).toHaveLength(2);
      fetchStandIn.handler = () => ({ dataJson: '{"results":[]}' });
      await paid(nearBase, '/api/apps/444');
      await paid(nearBase, '/api/apps/444');
      expect(fetchStandIn.calls).toHaveLength(4);
    });

    it('is off with GATEWAY_NEAR_CACHE_MS=0', async () => {
      await paid(offBase, '/api/apps/555');
      await paid(offBase, '/api/apps/555');
      expect(peek.calls).toHaveLength(2);
    });

    it('never says a hot query was uncharged when its debit met a failing payments (the debit may have been applied)', async () => {
      expect((await paid(nearBase, '/api/apps/777')).status).toBe(200);
      debit.handler = () => {
        throw { code: ErrorCode.ServiceUnavailable, message: 'credit store unavailable' };
      };
      const failed = await paid(nearBase, '/api/apps/777');
      expect(failed.status).toBe(502);
      const { message } = JSON.parse(failed.body) as { message: string };
      expect(message).toContain('the charge may have been made');
      expect(message).not.toContain('nothing was charged');
    });

    it.each([
      // No connection to the facilitator could be opened: the settlement was never asked for.
      [ErrorCode.FacilitatorUnreachable, 'nothing was charged', 'the charge may have been made', 901],
      [ErrorCode.FacilitatorUnavailable, 'the charge may have been made', 'nothing was charged', 902],
    ])('an x402 payment taken at once for a hot query that fails with %s says %s', async (code, says, never, id) => {
      const path = `/api/apps/${id}`;
      expect((await paid(nearBase, path)).status).toBe(200);
      x402Check.handler = () => {
        throw { code, message: 'payment facilitator unreachable' };
      };
      const res = await fetch(nearBase + path, { headers: { 'payment-signature': 'e30=' } });
      expect(res.status).toBe(502);
      const { message } = (await res.json()) as { message: string };
      expect(message).toMatch(new RegExp(`^payment facilitator unreachable; ${says}`));
      expect(message).not.toContain(never);
      // Taken at once (payments.x402.pay), not held: the near cache answered.
      expect(payAtOnce.calls).toHaveLength(1);
    });

    it('never skips the debit: a refused call is refused even for a hot query', async () => {
      expect((await paid(nearBase, '/api/apps/666')).status).toBe(200);
      const refused = await paid(nearBase, '/api/apps/666', EMPTY_KEY);
      expect(refused.status).toBe(402);
      expect(debit.calls).toHaveLength(2);
    });
  });

  describe('coalescing', () => {
    it('answers each of many concurrent calls with its own outcome, exactly one hold and one capture each', async () => {
      const keys = Array.from({ length: 40 }, (_, i) => (i % 5 === 0 ? EMPTY_KEY : KEY));
      const answers = await Promise.all(keys.map((key, i) => paid(coalescingBase, `/api/apps/${700 + i}`, key)));
      expect(answers.map((res) => res.status)).toEqual(keys.map((key) => (key === EMPTY_KEY ? 402 : 200)));
      for (const [i, res] of answers.entries())
        if (res.status === 200) expect(JSON.parse(res.body).data.echo.appId).toBe(String(700 + i));
      expect(debit.calls).toHaveLength(40);
      expect(capture.calls).toHaveLength(32);
    });
  });
});
