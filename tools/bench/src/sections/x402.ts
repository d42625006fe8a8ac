import { x402Client } from '@x402/core/client';
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from '@x402/core/http';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { ExactSvmScheme } from '@x402/svm/exact/client';
import { createKeyPairSignerFromBytes, getBase58Encoder } from '@solana/kit';
import { privateKeyToAccount } from 'viem/accounts';
import type { Report } from '../report.js';
import type { BenchSettings } from '../settings.js';
import { type FacilitatorWaitSource, floorFacilitatorWait, paymentsFacilitatorWait } from '../facilitator-wait.js';
import { type Stack, startFloor } from '../stack.js';
import { interleave, median } from '../stats.js';
import { fixed, markdownTable } from '../table.js';
import { BENCH_PATH } from './credits.js';

const log = (line: string) => process.stdout.write(`${line}\n`);

interface CallTimes {
  /** Whole call as the client saw it, ms. */
  totalMs: number;
  /** Of which the server waited on the facilitator, as its own facilitator client timed it, ms. */
  waitedMs: number;
  /** Of which the facilitator took, timed at the proxy in front of it, ms. */
  proxiedMs: number;
  /** Facilitator requests the call made. */
  facilitatorCalls: number;
}

type Target = {
  name: string;
  url: string;
  kind: 'x402' | 'credits';
  waited?: FacilitatorWaitSource;
  payer?: x402Client;
};

/**
 * Section 2: x402-paid calls, signed ahead of time with the official client (@x402/core client with
 * the @x402/evm exact scheme, anvil's payer), one at a time, against our gateway and against
 * @x402/express protecting the same data with the same facilitator; plus credit-paid calls one at a
 * time as the baseline of what a call costs us without x402.
 *
 * The facilitator's share is taken off each x402 call as the server saw it: the time its facilitator
 * client waited, from calling verify or settle to the answer (payments' histogram for ours, a timed
 * copy of the library's client in the @x402/express floor). A proxy in front of the facilitator also
 * times each request from its arrival to the facilitator's last byte; own time by that clock is
 * reported beside it, and the difference is the proxy's own hop, which no deployment has.
 */
export async function x402Section(stack: Stack, settings: BenchSettings, report: Report): Promise<void> {
  const chain = stack.chain!;
  const timer = stack.facilitatorTimer!;
  const express = stack.adopt(
    await startFloor(
      'express x402',
      'express-x402',
      { REDIS_URL: stack.redis.url, FACILITATOR_URL: timer.url, PAY_TO: chain.accounts.payTo.address },
      /listening on/,
    ),
    'express x402',
  );
  const client = new x402Client();
  registerExactEvmScheme(client, { signer: privateKeyToAccount(chain.accounts.payer.privateKey) });
  // The same calls paid on the local Solana ledger: the official client with @x402/svm's scheme alone, so it picks Solana.
  const ledger = stack.solana!;
  const solanaSigner = await createKeyPairSignerFromBytes(
    new Uint8Array(getBase58Encoder().encode(ledger.accounts.payer.secretKey)),
  );
  const solanaClient = new x402Client().register('solana:*', new ExactSvmScheme(solanaSigner, { rpcUrl: ledger.url }));
  const key = await stack.createKey('100');
  const paymentsWait = paymentsFacilitatorWait(stack.services.get('payments')!.opsUrl!);
  const gatewayOps = stack.services.get('gateway')!.opsUrl!;
  /** The gateway's near-cache hits so far: a hit paid with x402 is paid at once (payments.x402.pay), a miss is held. */
  const nearHits = async () => {
    const text = await (await fetch(`${gatewayOps}/metrics?name=appcat_near_cache_reads_total`)).text();
    const hits = /^appcat_near_cache_reads_total\{[^}]*outcome="hit"[^}]*\} (\d+)/m.exec(text);
    return hits ? Number(hits[1]) : 0;
  };

  const targets: Target[] = [
    { name: 'ours, x402', url: stack.gatewayUrl, kind: 'x402', waited: paymentsWait, payer: client },
    {
      name: '@x402/express, x402',
      url: express.url!,
      kind: 'x402',
      waited: floorFacilitatorWait(express.url!),
      payer: client,
    },
    { name: 'ours, credits', url: stack.gatewayUrl, kind: 'credits' },
    { name: 'ours, x402 on Solana', url: stack.gatewayUrl, kind: 'x402', waited: paymentsWait, payer: solanaClient },
  ];

  /** What pays `n` calls of `target`: fresh x402 payloads, or nothing for the credit calls (their key is in `call`). */
  async function paymentsFor(target: Target, n: number): Promise<(string | undefined)[]> {
    return target.payer ? sign(target.payer, target.url, n) : Array.from({ length: n }, () => undefined);
  }

  async function sign(payer: x402Client, url: string, n: number): Promise<string[]> {
    const unpaid = await fetch(url + BENCH_PATH);
    const header = unpaid.headers.get('payment-required');
    if (unpaid.status !== 402 || !header) throw new Error(`${url} did not challenge (status ${unpaid.status})`);
    const required = decodePaymentRequiredHeader(header);
    const signed: string[] = [];
    for (let i = 0; i < n; i++) signed.push(encodePaymentSignatureHeader(await payer.createPaymentPayload(required)));
    return signed;
  }

  async function call(target: Target, signature?: string): Promise<CallTimes> {
    // The proxy's count restarts here; a server's wait is read after each of its calls, so it already starts here.
    timer.take();
    const headers: Record<string, string> = signature
      ? { 'payment-signature': signature }
      : { authorization: `Bearer ${key.key}` };
    const began = performance.now();
    const response = await fetch(target.url + BENCH_PATH, { headers });
    await response.arrayBuffer();
    const totalMs = performance.now() - began;
    if (response.status !== 200) throw new Error(`${target.name} answered ${response.status}`);
    if (target.kind === 'x402' && !response.headers.get('payment-response'))
      throw new Error(`${target.name} answered without a payment-response`);
    const proxied = timer.take();
    const waited = (await target.waited?.()) ?? { ms: 0, calls: 0 };
    if (target.kind === 'x402' && (proxied.calls < 1 || waited.calls !== proxied.calls)) {
      throw new Error(
        `${target.name}: the facilitator saw ${proxied.calls} requests, the server timed ${waited.calls}`,
      );
    }
    return { totalMs, waitedMs: waited.ms, proxiedMs: proxied.ms, facilitatorCalls: proxied.calls };
  }

  // Warm-up, unmeasured: the first call syncs /supported and fills caches; the rest let V8 compile the
  // x402 code paths, which the credit section never ran (with only 3 calls, round 1 ran them half interpreted).
  for (const target of targets) {
    for (const signature of await paymentsFor(target, settings.x402WarmupCalls)) await call(target, signature);
  }

  const times = new Map<string, CallTimes[][]>(targets.map((t) => [t.name, []]));
  /** Of our x402 calls on Base, how many the near cache answered. */
  const oursNear = { hits: 0, calls: 0 };
  for (const { round, target } of interleave(targets, settings.rounds)) {
    const calls: CallTimes[] = [];
    const signatures = await paymentsFor(target, settings.x402Calls);
    const hitsBefore = target === targets[0] ? await nearHits() : 0;
    for (const signature of signatures) calls.push(await call(target, signature));
    if (target === targets[0]) {
      oursNear.hits += (await nearHits()) - hitsBefore;
      oursNear.calls += calls.length;
    }
    times.get(target.name)!.push(calls);
    const roundMedian = (pick: (c: CallTimes) => number) => fixed(median(calls.map(pick)), 2);
    log(
      `  x402 round ${round + 1}: ${target.name}: median ${roundMedian((c) => c.totalMs)} ms, facilitator ${roundMedian((c) => c.waitedMs)} ms as waited, ${roundMedian((c) => c.proxiedMs)} ms at the proxy`,
    );
  }

  // Per round, the median over its calls; then the median of the rounds.
  const figures = targets.map((t) => {
    const rounds = times.get(t.name)!;
    const perRound = (pick: (c: CallTimes) => number) => median(rounds.map((calls) => median(calls.map(pick))));
    return {
      total: perRound((c) => c.totalMs),
      waited: perRound((c) => c.waitedMs),
      requests: perRound((c) => c.facilitatorCalls),
      own: perRound((c) => c.totalMs - c.waitedMs),
      ownByProxy: perRound((c) => c.totalMs - c.proxiedMs),
    };
  });
  const [ours, reference, credits, oursSolana] = figures;
  const added = ours.own - credits.own;
  const addedSolana = oursSolana.own - credits.own;
  const x402Cell = (i: number, value: number, digits = 2) => (targets[i].kind === 'x402' ? fixed(value, digits) : '–');
  report.add(
    'x402-paid calls',
    [
      `\`GET ${BENCH_PATH}\` paid with x402 on the local chain (anvil as Base, test USDC, the dev facilitator settling on it) and, for "ours, x402 on Solana", on the local Solana ledger (litesvm, USDC at the mainnet mint, \`@x402/svm\`'s client), ${settings.x402Calls} calls per server per round after ${settings.x402WarmupCalls} unmeasured ones, one at a time, payloads signed ahead of time with the official client (\`@x402/core\` client, \`@x402/evm\` exact scheme). \`@x402/express\` (its default flow: verify, then settle after the handler) protects the same data (read from Redis) with the same facilitator. Ours makes one facilitator request per payment: on a near-cache hit (the same path called one at a time: ${fixed((100 * oursNear.hits) / Math.max(1, oursNear.calls), 0)} % of our measured Base calls) the payment is checked (all but the signature), claimed and settled in one request to payments, the facilitator's \`/settle\` verifying the signature; on a miss it is checked, signature included, beside the cache read and settled once the data is in hand. "Waited" is the time each server's facilitator client spent on verify and settle, from the call to the answer (payments' \`appcat_x402_facilitator_request_seconds\`; a timed copy of the library's client in the floor); "own time" is the call minus that. Both servers reach the facilitator through a timing proxy, which also times each request from its arrival to the facilitator's last byte: "own time by the proxy's clock" counts the proxy's extra loopback hop, which no deployment has, as the server's. "ours, credits" is a credit-paid call one at a time: what a call costs us without x402.`,
      '',
      markdownTable(
        [
          'server',
          'call ms (median)',
          'facilitator requests',
          'waited on the facilitator ms',
          'own time ms',
          "own time by the proxy's clock ms",
        ],
        targets.map((t, i) => [
          t.name,
          fixed(figures[i].total, 2),
          x402Cell(i, figures[i].requests, 0),
          x402Cell(i, figures[i].waited),
          fixed(figures[i].own, 2),
          x402Cell(i, figures[i].ownByProxy),
        ]),
      ),
      '',
      `Per network, x402 adds to our call beyond the facilitator: Base **${fixed(added, 2)} ms**, Solana **${fixed(addedSolana, 2)} ms** (own time of an x402 call on that network − a credit call; Solana payloads are decoded and locked on the payer's signature, settled by \`@x402/svm\` on the local Solana ledger).`,
      '',
      `x402 adds **${fixed(added, 2)} ms** to our call beyond the facilitator (own time of an x402 call − a credit call; ${fixed(ours.ownByProxy - credits.own, 2)} ms by the proxy's clock); our own time ÷ @x402/express's: **${fixed(ours.ownByProxy / reference.ownByProxy, 2)}×** by the proxy's clock (${fixed(ours.own / reference.own, 2)}× as each server's client timed it, the library's \`fetch\` work falling inside its span); a whole x402 call, ours ÷ @x402/express's: **${fixed(ours.total / reference.total, 2)}×**.`,
    ].join('\n'),
  );
  report.check({
    name: 'x402 beyond the facilitator (median)',
    target: '≤ 2 ms',
    measured: `${fixed(added, 2)} ms`,
    met: Number.isFinite(added) ? added <= 2 : undefined,
  });
  const ownRatio = ours.ownByProxy / reference.ownByProxy;
  report.check({
    name: 'x402 own time net of the facilitator ÷ @x402/express (proxy clock)',
    target: '≤ 1.00×',
    measured: `${fixed(ours.ownByProxy, 2)} ms vs ${fixed(reference.ownByProxy, 2)} ms (${fixed(ownRatio, 2)}×)`,
    met: Number.isFinite(ownRatio) ? ownRatio <= 1 : undefined,
  });
  log(`  x402 beyond the facilitator per network: Base ${fixed(added, 2)} ms, Solana ${fixed(addedSolana, 2)} ms`);
}
