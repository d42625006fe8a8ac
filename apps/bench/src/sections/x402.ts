import { x402Client } from '@x402/core/client';
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from '@x402/core/http';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { privateKeyToAccount } from 'viem/accounts';
import type { Report } from '../report.js';
import type { BenchSettings } from '../settings.js';
import { type Stack, startFloor } from '../stack.js';
import { interleave, median } from '../stats.js';
import { fixed, markdownTable } from '../table.js';
import { BENCH_PATH } from './credits.js';

const log = (line: string) => process.stdout.write(`${line}\n`);

interface CallTimes {
  /** Whole call as the client saw it, ms. */
  totalMs: number[];
  /** Of which in the facilitator (verify + settle), ms. */
  facilitatorMs: number[];
}

type Target = { name: string; url: string; kind: 'x402' | 'credits' };

/**
 * Section 2: x402-paid calls, signed ahead of time with the official client (@x402/core client with
 * the @x402/evm exact scheme, anvil's payer), one at a time, against our gateway and against
 * @x402/express protecting the same data with the same facilitator; plus credit-paid calls one at a
 * time as the baseline of what a call costs us without x402. The facilitator's share is timed by a
 * proxy in front of it and taken off.
 */
export async function x402Section(stack: Stack, settings: BenchSettings, report: Report): Promise<void> {
  const chain = stack.chain!;
  const timer = stack.facilitatorTimer!;
  const express = stack.adopt(
    await startFloor('express x402', 'express-x402', { REDIS_URL: stack.redis.url, FACILITATOR_URL: timer.url, PAY_TO: chain.accounts.payTo.address }, /listening on/),
    'express x402',
  );
  const client = new x402Client();
  registerExactEvmScheme(client, { signer: privateKeyToAccount(chain.accounts.payer.privateKey) });
  const key = await stack.createKey('100');

  const targets: Target[] = [
    { name: 'ours, x402', url: stack.gatewayUrl, kind: 'x402' },
    { name: '@x402/express, x402', url: express.url!, kind: 'x402' },
    { name: 'ours, credits', url: stack.gatewayUrl, kind: 'credits' },
  ];

  async function sign(url: string, n: number): Promise<string[]> {
    const unpaid = await fetch(url + BENCH_PATH);
    const header = unpaid.headers.get('payment-required');
    if (unpaid.status !== 402 || !header) throw new Error(`${url} did not challenge (status ${unpaid.status})`);
    const required = decodePaymentRequiredHeader(header);
    const signed: string[] = [];
    for (let i = 0; i < n; i++) signed.push(encodePaymentSignatureHeader(await client.createPaymentPayload(required)));
    return signed;
  }

  async function call(target: Target, signature?: string): Promise<{ totalMs: number; facilitatorMs: number }> {
    timer.take();
    const headers: Record<string, string> = signature ? { 'payment-signature': signature } : { authorization: `Bearer ${key.key}` };
    const began = performance.now();
    const response = await fetch(target.url + BENCH_PATH, { headers });
    await response.arrayBuffer();
    const totalMs = performance.now() - began;
    if (response.status !== 200) throw new Error(`${target.name} answered ${response.status}`);
    if (target.kind === 'x402' && !response.headers.get('payment-response')) throw new Error(`${target.name} answered without a payment-response`);
    const spent = timer.take();
    if (target.kind === 'x402' && spent.calls < 2) throw new Error(`${target.name}: expected verify and settle, the facilitator saw ${spent.calls} calls`);
    return { totalMs, facilitatorMs: spent.ms };
  }

  // Warm-up: a few paid calls each (the first syncs /supported, fills caches, JITs).
  for (const target of targets) {
    const signatures = target.kind === 'x402' ? await sign(target.url, 3) : [undefined, undefined, undefined];
    for (const signature of signatures) await call(target, signature);
  }

  const times = new Map<string, CallTimes[]>(targets.map((t) => [t.name, []]));
  for (const { round, target } of interleave(targets, settings.rounds)) {
    const signatures = target.kind === 'x402' ? await sign(target.url, settings.x402Calls) : Array.from({ length: settings.x402Calls }, () => undefined);
    const round_: CallTimes = { totalMs: [], facilitatorMs: [] };
    for (const signature of signatures) {
      const { totalMs, facilitatorMs } = await call(target, signature);
      round_.totalMs.push(totalMs);
      round_.facilitatorMs.push(facilitatorMs);
    }
    times.get(target.name)!.push(round_);
    log(`  x402 round ${round + 1}: ${target.name}: median ${fixed(median(round_.totalMs), 2)} ms, facilitator ${fixed(median(round_.facilitatorMs), 2)} ms`);
  }

  // Per round: the median call, and the median of (call − facilitator); then the median of the rounds.
  const figures = targets.map((t) => {
    const rounds = times.get(t.name)!;
    return {
      total: median(rounds.map((r) => median(r.totalMs))),
      facilitator: median(rounds.map((r) => median(r.facilitatorMs))),
      own: median(rounds.map((r) => median(r.totalMs.map((ms, i) => ms - r.facilitatorMs[i])))),
    };
  });
  const [ours, reference, credits] = figures;
  const added = ours.own - credits.own;
  report.add(
    'x402-paid calls',
    [
      `\`GET ${BENCH_PATH}\` paid with x402 on the local chain (anvil as Base, test USDC, the dev facilitator settling on it), ${settings.x402Calls} calls per server per round, one at a time, payloads signed ahead of time with the official client (\`@x402/core\` client, \`@x402/evm\` exact scheme). Both servers reach the facilitator through a timing proxy; "own time" is each call's time minus the facilitator's verify and settle. \`@x402/express\` protects the same data (read from Redis) with the same facilitator. "ours, credits" is a credit-paid call one at a time: what a call costs us without x402.`,
      '',
      markdownTable(
        ['server', 'call ms (median)', 'facilitator ms', 'own time ms'],
        targets.map((t, i) => [t.name, fixed(figures[i].total, 2), t.kind === 'x402' ? fixed(figures[i].facilitator, 2) : '–', fixed(figures[i].own, 2)]),
      ),
      '',
      `x402 adds **${fixed(added, 2)} ms** to our call beyond the facilitator (own time of an x402 call − a credit call); our own time ÷ @x402/express's: **${fixed(ours.own / reference.own, 2)}×**.`,
    ].join('\n'),
  );
  report.check({ name: 'x402 beyond the facilitator (median)', target: '≤ 2 ms', measured: `${fixed(added, 2)} ms`, met: Number.isFinite(added) ? added <= 2 : undefined });
}
