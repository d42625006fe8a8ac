import { randomUUID } from 'node:crypto';
import type { X402NetworkFacts } from '@appcat/contracts';
import { REFERENCE_IDS } from '@appcat/store-emulator';
import { x402Client } from '@x402/core/client';
import { decodePaymentResponseHeader } from '@x402/core/http';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { wrapFetchWithPayment } from '@x402/fetch';
import { ExactSvmScheme } from '@x402/svm/exact/client';
import type { TransactionSigner } from '@solana/kit';
import type { Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';

/** What a caller saw: an HTTP status, or `conn` when the connection failed (refused, reset, timed out). */
export type Outcome = number | 'conn';
export type CallKind = 'credit' | 'x402' | 'balance' | 'bad' | 'topup';

/** Charged credit calls per key, as the caller saw them. */
export interface KeyTally {
  id: string;
  key: string;
  /** 200s: delivered and charged. */
  delivered: number;
  /** No answer, or a 5xx that does not say nothing was charged (a capture whose answer was lost): may have been charged. */
  ambiguous: number;
}

/** One x402 call that was delivered: its request id and the settlement transaction the answer named. */
export interface X402Delivery {
  requestId: string;
  /** CAIP-2 id the payment settled on. */
  network: string;
  transaction: string;
}

/** Counts per kind and outcome, for one window (a fault's phase). */
export class Histogram {
  readonly counts = new Map<string, number>();
  /** 502s that carried a charge (`x-credits-remaining` or `payment-response`): paid for and not delivered. */
  charged502 = 0;
  /**
   * Of those, the ones refused by an upstream already known unavailable (an open breaker or a spent
   * budget: the message ends "retry after N s"): charged although the catalog could have said so
   * first. The rest found the failure out (the upstream failed them).
   */
  charged502WhileOpen = 0;
  /** When the window began, and when its charged 502s came (ms after that): whether they came at the start of a fault or all along. */
  readonly startedAt = Date.now();
  charged502Span: [number, number] | undefined;
  add(kind: CallKind, outcome: Outcome): void {
    const name = `${kind} ${outcome}`;
    this.counts.set(name, (this.counts.get(name) ?? 0) + 1);
  }
  total(filter: (kind: string, outcome: string) => boolean = () => true): number {
    let sum = 0;
    for (const [name, count] of this.counts) {
      const [kind, outcome] = name.split(' ');
      if (filter(kind, outcome)) sum += count;
    }
    return sum;
  }
  /** "credit: 200×812 502×14 | balance: 200×120 …" */
  format(): string {
    const byKind = new Map<string, string[]>();
    for (const [name, count] of [...this.counts].sort()) {
      const [kind, outcome] = name.split(' ');
      byKind.set(kind, [...(byKind.get(kind) ?? []), `${outcome}×${count}`]);
    }
    return [
      ...[...byKind].map(([kind, parts]) => `${kind}: ${parts.join(' ')}`),
      `charged 502: ${this.charged502} (${this.charged502WhileOpen} while a breaker was open${this.chargedSpan() ? `, ${this.chargedSpan()}` : ''})`,
    ].join(' | ');
  }
  /** "+0.3 s to +2.1 s": when the charged 502s came, in seconds after the window began; '' without any. */
  chargedSpan(): string {
    const span = this.charged502Span;
    return span ? `+${(span[0] / 1000).toFixed(1)} s to +${(span[1] / 1000).toFixed(1)} s` : '';
  }
}

const CREDIT_PATHS = [
  `/api/apps/${REFERENCE_IDS.app}`,
  `/api/apps/${REFERENCE_IDS.chessApp}?country=gb`,
  '/api/apps?term=chess',
  `/api/apps/${REFERENCE_IDS.app}/reviews?page=2`,
  `/api/apps/${REFERENCE_IDS.app}/similar`,
  `/api/bundles/${REFERENCE_IDS.bundle}`,
  `/api/developers/${REFERENCE_IDS.developer}`,
  '/api/bundles?term=meta',
];

/** Requests that must be refused without a charge: [path, headers, the status the spec requires]. */
const BAD_REQUESTS: [string, Record<string, string>, number][] = [
  ['/api/apps?term=', {}, 400],
  ['/api/apps/abc%2F..%2Fx', {}, 400],
  ['/api/apps?term=chess&term=go', {}, 400],
  ['/api/apps/1/reviews?page=0', {}, 400],
  ['/api/apps/284882215', { authorization: 'Bearer ak_unknownunknownunknownunknownunknownunknown' }, 401],
  ['/api/apps/284882215', { authorization: 'Basic Zm9vOmJhcg==' }, 401],
  ['/api/apps/284882215', { 'payment-signature': 'bm90LWEtcGF5bWVudA==' }, 402],
  ['/api/nothing-here', {}, 404],
];

export interface TrafficOptions {
  gatewayUrls: string[];
  keys: { id: string; key: string }[];
  payerPrivateKey: Hex;
  /** The networks x402 calls pay on, in turn; extended-set ones only on the developers route (the only one offering them). Solana needs `solana`. */
  x402Networks: readonly X402NetworkFacts[];
  /** The Solana payer and the ledger its client reads blockhashes from, for the Solana entries of `x402Networks`. */
  solana?: { signer: TransactionSigner; rpcUrl: string };
  /** Concurrent credit/balance/bad-request callers. */
  creditWorkers: number;
  /** Concurrent x402 payers (each call is a signature and an on-chain settlement). */
  x402Workers: number;
  /** Give up on a request after this long (counted as `conn`). */
  requestTimeoutMs?: number;
}

/**
 * Sustained mixed traffic over every gateway: credit-paid calls, x402-paid calls with the official
 * @x402/fetch client, balance reads and bad requests; every outcome is counted in the current window,
 * and what was charged is tallied per key for the checks afterwards.
 */
export class Traffic {
  window = new Histogram();
  readonly total = new Histogram();
  readonly tallies: Map<string, KeyTally>;
  readonly deliveries: X402Delivery[] = [];
  /** x402 calls answered 5xx or not at all: they may have settled without a delivery. */
  x402Ambiguous = 0;
  /** Statuses no caller may see: 5xx other than 502, or a status the request does not allow. */
  readonly violations: string[] = [];
  private running = false;
  private workers: Promise<void>[] = [];
  private next = 0;
  /** One official client per network, able to pay there only, so it takes that network's entry of a challenge. */
  private readonly payers: { network: X402NetworkFacts; fetch: typeof fetch }[];
  private nextPayer = 0;

  constructor(private readonly options: TrafficOptions) {
    this.tallies = new Map(options.keys.map((k) => [k.key, { ...k, delivered: 0, ambiguous: 0 }]));
    const signer = privateKeyToAccount(options.payerPrivateKey);
    const solana = options.solana;
    this.payers = options.x402Networks
      .filter((network) => network.kind === 'evm' || solana)
      .map((network) => {
        const caip2 = network.network as `${string}:${string}`;
        const client =
          network.kind === 'svm' && solana
            ? new x402Client().register(caip2, new ExactSvmScheme(solana.signer, { rpcUrl: solana.rpcUrl }))
            : registerExactEvmScheme(new x402Client(), { signer, networks: [caip2] });
        return { network, fetch: wrapFetchWithPayment(fetch, client) };
      });
  }

  start(): void {
    this.running = true;
    for (let i = 0; i < this.options.creditWorkers; i++) this.workers.push(this.loop(() => this.mixedCall()));
    for (let i = 0; i < this.options.x402Workers; i++) this.workers.push(this.loop(() => this.x402Call()));
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.workers);
    this.workers = [];
  }

  /** Starts a new window and returns the one that ended. */
  cut(): Histogram {
    const ended = this.window;
    this.window = new Histogram();
    return ended;
  }

  /**
   * One credit call through every gateway (`everyKey`: one per key, spread over the gateways, as after a
   * fault that hit some keys only); true when all were delivered. Tallied like the traffic.
   */
  async probe(everyKey = false): Promise<boolean> {
    const calls = everyKey
      ? [...this.tallies.values()].map((tally, index) => ({
          url: this.options.gatewayUrls[index % this.options.gatewayUrls.length],
          tally,
        }))
      : this.options.gatewayUrls.map((url) => ({ url, tally: this.pickKey() }));
    const results = await Promise.all(
      calls.map(async ({ url, tally }) => {
        const response = await this.send(`${url}${CREDIT_PATHS[0]}`, { authorization: `Bearer ${tally.key}` });
        const outcome: Outcome = response ? response.status : 'conn';
        const said = await this.noteFailure(response, outcome === 502 && response!.headers.has('x-credits-remaining'));
        if (outcome === 200) tally.delivered++;
        else if (outcome === 'conn' || (outcome >= 500 && !saysUncharged(said))) tally.ambiguous++;
        return outcome === 200;
      }),
    );
    return results.every(Boolean);
  }

  /** Credit-paid calls delivered so far (all keys). */
  creditDelivered(): number {
    let sum = 0;
    for (const tally of this.tallies.values()) sum += tally.delivered;
    return sum;
  }

  /**
   * Fires `count` x402 calls at once and leaves them running; resolves when all have answered.
   * `answered` counts them as they end. Each waits up to `timeoutMs` (the callers' usual timeout when
   * not given).
   */
  burstX402(count: number, timeoutMs?: number): { answered: () => number; done: Promise<void> } {
    let answered = 0;
    const calls = Array.from({ length: count }, () =>
      this.x402Call(timeoutMs)
        .catch(() => undefined)
        .finally(() => answered++),
    );
    return { answered: () => answered, done: Promise.all(calls).then(() => undefined) };
  }

  private async loop(call: () => Promise<void>): Promise<void> {
    while (this.running) {
      await call().catch((error: unknown) => this.violations.push(`traffic generator error: ${String(error)}`));
    }
  }

  private gateway(): string {
    return this.options.gatewayUrls[this.next++ % this.options.gatewayUrls.length];
  }

  private record(kind: CallKind, outcome: Outcome, allowed: (status: number) => boolean, detail: string): void {
    this.window.add(kind, outcome);
    this.total.add(kind, outcome);
    if (outcome !== 'conn' && !allowed(outcome)) this.violations.push(`${kind} ${detail} answered ${outcome}`);
  }

  private async send(
    url: string,
    headers: Record<string, string>,
    useFetch: typeof fetch = fetch,
    timeoutMs = this.options.requestTimeoutMs ?? 20_000,
  ): Promise<Response | null> {
    try {
      return await useFetch(url, { headers, signal: AbortSignal.timeout(timeoutMs) });
    } catch {
      return null;
    }
  }

  private async mixedCall(): Promise<void> {
    const roll = Math.random();
    if (roll < 0.65) return this.creditCall();
    if (roll < 0.8) return this.balanceRead();
    return this.badRequest();
  }

  private pickKey(): KeyTally {
    const tallies = [...this.tallies.values()];
    return tallies[Math.floor(Math.random() * tallies.length)];
  }

  private async creditCall(): Promise<void> {
    const tally = this.pickKey();
    const path = CREDIT_PATHS[Math.floor(Math.random() * CREDIT_PATHS.length)];
    const response = await this.send(this.gateway() + path, {
      authorization: `Bearer ${tally.key}`,
      'x-request-id': `credit-${randomUUID()}`,
    });
    const outcome: Outcome = response ? response.status : 'conn';
    const charged = outcome === 502 && response!.headers.has('x-credits-remaining');
    const said = await this.noteFailure(response, charged);
    if (outcome === 200) tally.delivered++;
    // A 502 saying nothing was charged must have no debit: the books hold it to that.
    else if (outcome === 'conn' || (outcome >= 500 && !saysUncharged(said))) tally.ambiguous++;
    // 402 topup_required is a correct answer once a key ran dry; 502 is the spec's dependency failure.
    this.record('credit', outcome, (s) => s === 200 || s === 402 || s === 502, path);
  }

  private countCharged502(whileOpen: boolean): void {
    for (const histogram of [this.window, this.total]) {
      histogram.charged502++;
      if (whileOpen) histogram.charged502WhileOpen++;
      const at = Date.now() - histogram.startedAt;
      histogram.charged502Span = [histogram.charged502Span?.[0] ?? at, at];
    }
  }

  /** Why 5xx answers failed ("payments service unavailable": 14), for the report. */
  readonly failureMessages = new Map<string, number>();

  /**
   * Reads a 5xx answer's message for the report, and counts a charged 502 (`charged`: it carried the
   * charge's header); answers the message ('' for anything but a 5xx).
   */
  private async noteFailure(response: Response | null, charged: boolean): Promise<string> {
    if (!response || response.status < 500) {
      await response?.arrayBuffer().catch(() => undefined);
      return '';
    }
    const body = (await response.json().catch(() => null)) as { message?: unknown } | null;
    const text = String(body?.message ?? 'no envelope');
    if (charged) this.countCharged502(/; retry after \d+ s$/.test(text));
    // Charged 502s apart: those are the calls paid for and not delivered.
    const message = `${response.status}${charged ? ' (charged)' : ''} ${text}`;
    this.failureMessages.set(message, (this.failureMessages.get(message) ?? 0) + 1);
    return text;
  }

  /** Failure messages seen since the last call, most frequent first. */
  takeFailureMessages(): string {
    const text = [...this.failureMessages]
      .sort((a, b) => b[1] - a[1])
      .map(([m, n]) => `${n}× ${m}`)
      .join('; ');
    this.failureMessages.clear();
    return text;
  }

  private async balanceRead(): Promise<void> {
    const tally = this.pickKey();
    const response = await this.send(`${this.gateway()}/api/credits/balance`, { authorization: `Bearer ${tally.key}` });
    await response?.arrayBuffer().catch(() => undefined);
    this.record('balance', response ? response.status : 'conn', (s) => s === 200 || s === 502, 'balance');
  }

  private async badRequest(): Promise<void> {
    const [path, headers, expected] = BAD_REQUESTS[Math.floor(Math.random() * BAD_REQUESTS.length)];
    const response = await this.send(this.gateway() + path, headers);
    const body = response ? ((await response.json().catch(() => null)) as { status?: unknown } | null) : null;
    if (response && body?.status !== response.status) this.violations.push(`bad ${path}: no envelope`);
    // A refused key or payment may instead meet a dependency that is down (502): it is never charged either way.
    this.record('bad', response ? response.status : 'conn', (s) => s === expected || s === 502, path);
  }

  private async x402Call(timeoutMs?: number): Promise<void> {
    const requestId = `x402-${randomUUID()}`;
    const payer = this.payers[this.nextPayer++ % this.payers.length];
    const paths =
      payer.network.set === 'standard' ? CREDIT_PATHS : CREDIT_PATHS.filter((p) => p.startsWith('/api/developers/'));
    const path = paths[Math.floor(Math.random() * paths.length)];
    // Either gateway: both advertise the public address, which the payment names as its resource.
    const response = await this.send(this.gateway() + path, { 'x-request-id': requestId }, payer.fetch, timeoutMs);
    const outcome: Outcome = response ? response.status : 'conn';
    if (outcome !== 200) await this.noteFailure(response, outcome === 502 && response!.headers.has('payment-response'));
    else await response?.arrayBuffer().catch(() => undefined);
    if (response && outcome === 200) {
      const header = response.headers.get('payment-response');
      if (!header) this.violations.push(`x402 ${requestId} delivered without payment-response`);
      else {
        const receipt = decodePaymentResponseHeader(header);
        if (receipt.network !== payer.network.network)
          this.violations.push(`x402 ${requestId} paid on ${payer.network.network} settled on ${receipt.network}`);
        this.deliveries.push({ requestId, network: receipt.network, transaction: receipt.transaction });
      }
    } else if (outcome === 'conn' || outcome >= 500) this.x402Ambiguous++;
    // 402: the facilitator refused or was unreachable at the challenge (then the client gives up).
    this.record('x402', outcome, (s) => s === 200 || s === 402 || s === 502, path);
  }
}

/** A priced call's failure that says it charged nothing (the gateway's `ErrorAnswers.uncharged`). */
function saysUncharged(message: string): boolean {
  return message.endsWith('; nothing was charged');
}
