import { createHash, timingSafeEqual } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { PaymentPayloadV2Schema, PaymentRequirementsV2Schema } from '@x402/core/schemas';
import type { PaymentPayload, PaymentRequirements, SettleResponse, VerifyResponse } from '@x402/core/types';
import { fastify } from 'fastify';
import type { Hex } from 'viem';
import { type CdpApiKey, CdpJwtVerifier } from './cdp-auth.js';
import { type FacilitatorSolana, registerSolana } from './solana.js';
import { type FacilitatorNetwork, createX402Facilitator } from './x402-facilitator.js';

/** anvil's published account #1 (see @appcat/local-chain's DEV_ACCOUNTS.facilitator): local chains only. */
export const DEFAULT_FACILITATOR_PRIVATE_KEY: Hex =
  '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d';
export const DEFAULT_FACILITATOR_PORT = 4020;
export const DEFAULT_RECEIPT_TIMEOUT_MS = 30_000;

export interface DevFacilitatorOptions {
  /** JSON-RPC endpoint for every network given without its own. */
  rpcUrl: string;
  /** Default 4020; 0 lets the OS pick a free port (what tests want). */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** The gas-paying settlement key. Default: anvil's account #1. */
  privateKey?: Hex;
  /** CAIP-2 EVM networks, each optionally with its own RPC. Default: ['eip155:8453']. */
  networks?: (string | FacilitatorNetwork)[];
  /** When set, every request must carry `Authorization: Bearer <authToken>`. */
  authToken?: string;
  /**
   * When set, every request must carry a CDP request JWT signed by one of these API keys, checked as
   * Coinbase's CDP facilitator does (cdp-auth.ts): the mode payments' `X402_FACILITATOR=cdp` is tested against.
   */
  cdpKeys?: CdpApiKey[];
  /** How long a settlement waits for its receipt before answering `settlement_pending`, ms. */
  receiptTimeoutMs?: number;
  /** Solana (@x402/svm's exact scheme) with its RPC and fee payer; left out when not given. */
  solana?: FacilitatorSolana;
}

export interface FacilitatorStats {
  verifyCalls: number;
  verifyValid: number;
  settleCalls: number;
  settleSucceeded: number;
  /** Requests answered 503 because of setUnavailable(true). */
  refusedUnavailable: number;
  /** Requests answered 401 for a missing or wrong bearer token or CDP JWT. */
  refusedUnauthorized: number;
}

export interface DevFacilitator {
  url: string;
  /** The settlement account: it submits transferWithAuthorization and pays the gas. */
  address: Hex;
  networks: FacilitatorNetwork[];
  /** The Solana network settled on and its fee payer (what `/supported` names), when Solana is on. */
  solana?: { network: string; feePayer: string; rpcUrl: string };
  stats(): FacilitatorStats;
  /**
   * Holds every /verify and /settle this long before handling it. The work still happens after a
   * caller gives up, as with a slow real facilitator: a settle can land after its caller timed out.
   */
  setDelayMs(ms: number): void;
  /**
   * Holds every /verify and /settle from now until the returned function is called, however long that
   * is: a test can then tell "while payments hang" by events, not by a window of time.
   */
  hold(): () => void;
  /** While true every request is answered 503 without being handled, as if the facilitator were down. */
  setUnavailable(unavailable: boolean): void;
  stop(): Promise<void>;
}

const MAX_ERROR_MESSAGE = 500;

function bearerMatches(header: string | undefined, token: string): boolean {
  const presented = /^Bearer (.+)$/i.exec(header ?? '')?.[1] ?? '';
  // Compared as digests so the comparison takes the same time whatever the length.
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(presented), digest(token));
}

function normaliseNetworks(networks: DevFacilitatorOptions['networks'], rpcUrl: string): FacilitatorNetwork[] {
  return (networks ?? ['eip155:8453']).map((entry) =>
    typeof entry === 'string' ? { network: entry as FacilitatorNetwork['network'], rpcUrl } : entry,
  );
}

type ParsedRequest =
  | { ok: true; paymentPayload: PaymentPayload; paymentRequirements: PaymentRequirements }
  | { ok: false; message: string; network: string };

/** Checks the body against x402 v2's schemas, then hands on the objects as sent (nothing stripped). */
function parseRequest(body: unknown): ParsedRequest {
  const { paymentPayload, paymentRequirements } = (typeof body === 'object' && body !== null ? body : {}) as Record<
    string,
    unknown
  >;
  const checks = [
    ['paymentPayload', PaymentPayloadV2Schema.safeParse(paymentPayload)],
    ['paymentRequirements', PaymentRequirementsV2Schema.safeParse(paymentRequirements)],
  ] as const;
  const failed = checks.find(([, result]) => !result.success);
  if (!failed) {
    return {
      ok: true,
      paymentPayload: paymentPayload as PaymentPayload,
      paymentRequirements: paymentRequirements as PaymentRequirements,
    };
  }
  const [field, result] = failed;
  const issue = result.error?.issues[0];
  const where = [field, ...(issue?.path ?? [])].join('.');
  const network = (paymentRequirements as { network?: unknown } | undefined)?.network;
  return {
    ok: false,
    message: `invalid x402 v2 request: ${where}: ${issue?.message ?? 'invalid'}`,
    network: typeof network === 'string' ? network : '',
  };
}

function errorMessage(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).slice(0, MAX_ERROR_MESSAGE);
}

/**
 * A facilitator for local x402 flows, speaking the facilitator HTTP API (POST /verify, POST /settle,
 * GET /supported; plus GET /healthz, open without the token) over @x402/core's x402Facilitator. Malformed bodies are answered 400 with an
 * `invalid_payload` verdict, payments this facilitator has no scheme for with an `unsupported_scheme`
 * verdict, and failures of its own (RPC down, etc.) 500 `{ error }`.
 */
export async function startDevFacilitator(options: DevFacilitatorOptions): Promise<DevFacilitator> {
  const networks = normaliseNetworks(options.networks, options.rpcUrl);
  const { facilitator, address } = createX402Facilitator({
    privateKey: options.privateKey ?? DEFAULT_FACILITATOR_PRIVATE_KEY,
    networks,
    receiptTimeoutMs: options.receiptTimeoutMs ?? DEFAULT_RECEIPT_TIMEOUT_MS,
  });
  const solana = options.solana
    ? { ...(await registerSolana(facilitator, options.solana)), rpcUrl: options.solana.rpcUrl }
    : undefined;
  const supported = facilitator.getSupported();
  const supports = (p: PaymentPayload, r: PaymentRequirements) =>
    supported.kinds.some((k) => k.x402Version === p.x402Version && k.scheme === r.scheme && k.network === r.network);

  const stats: FacilitatorStats = {
    verifyCalls: 0,
    verifyValid: 0,
    settleCalls: 0,
    settleSucceeded: 0,
    refusedUnavailable: 0,
    refusedUnauthorized: 0,
  };
  const cdp = options.cdpKeys?.length ? new CdpJwtVerifier(options.cdpKeys) : undefined;
  let delayMs = 0;
  let unavailable = false;
  let held: Promise<void> | undefined;
  const delay = () => held ?? (delayMs > 0 ? new Promise((r) => setTimeout(r, delayMs)) : undefined);

  // Keep-alive connections from callers must not hold stop() open.
  const app = fastify({ logger: false, forceCloseConnections: true });

  app.addHook('onRequest', async (request, reply) => {
    if (unavailable) {
      stats.refusedUnavailable += 1;
      return reply.code(503).send({ error: 'facilitator unavailable' });
    }
    // Health checks (Compose, Kubernetes) carry no credentials.
    if (request.url.split('?')[0] === '/healthz') return;
    if (options.authToken && !bearerMatches(request.headers.authorization, options.authToken)) {
      stats.refusedUnauthorized += 1;
      return reply.code(401).send({ error: 'unauthorized' });
    }
    if (cdp) {
      try {
        await cdp.verify(request.headers.authorization, request.method, request.url.split('?')[0]);
      } catch (error) {
        stats.refusedUnauthorized += 1;
        return reply.code(401).send({ error: `unauthorized: ${errorMessage(error)}` });
      }
    }
  });

  app.get('/healthz', async () => ({ ok: true }));
  app.get('/supported', async () => supported);

  app.post('/verify', async (request, reply) => {
    stats.verifyCalls += 1;
    await delay();
    const parsed = parseRequest(request.body);
    if (!parsed.ok) {
      const verdict: VerifyResponse = {
        isValid: false,
        invalidReason: 'invalid_payload',
        invalidMessage: parsed.message,
      };
      return reply.code(400).send(verdict);
    }
    const { paymentPayload, paymentRequirements } = parsed;
    if (!supports(paymentPayload, paymentRequirements)) {
      const verdict: VerifyResponse = {
        isValid: false,
        invalidReason: 'unsupported_scheme',
        invalidMessage: `no ${paymentRequirements.scheme} scheme for x402 v${paymentPayload.x402Version} on ${paymentRequirements.network}`,
      };
      return verdict;
    }
    try {
      const verdict = await facilitator.verify(paymentPayload, paymentRequirements);
      if (verdict.isValid) stats.verifyValid += 1;
      return verdict;
    } catch (error) {
      return reply.code(500).send({ error: errorMessage(error) });
    }
  });

  app.post('/settle', async (request, reply) => {
    stats.settleCalls += 1;
    await delay();
    const parsed = parseRequest(request.body);
    if (!parsed.ok) {
      const result: SettleResponse = {
        success: false,
        errorReason: 'invalid_payload',
        errorMessage: parsed.message,
        transaction: '',
        network: parsed.network as SettleResponse['network'],
      };
      return reply.code(400).send(result);
    }
    const { paymentPayload, paymentRequirements } = parsed;
    if (!supports(paymentPayload, paymentRequirements)) {
      const result: SettleResponse = {
        success: false,
        errorReason: 'unsupported_scheme',
        errorMessage: `no ${paymentRequirements.scheme} scheme for x402 v${paymentPayload.x402Version} on ${paymentRequirements.network}`,
        transaction: '',
        network: paymentRequirements.network,
      };
      return result;
    }
    try {
      const result = await facilitator.settle(paymentPayload, paymentRequirements);
      if (result.success) stats.settleSucceeded += 1;
      // viem's revert messages run to kilobytes; the reason code carries the meaning.
      return result.errorMessage
        ? { ...result, errorMessage: result.errorMessage.slice(0, MAX_ERROR_MESSAGE) }
        : result;
    } catch (error) {
      return reply.code(500).send({ error: errorMessage(error) });
    }
  });

  await app.listen({ port: options.port ?? DEFAULT_FACILITATOR_PORT, host: options.host ?? '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  const host = options.host ?? '127.0.0.1';

  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    address,
    networks,
    solana,
    stats: () => ({ ...stats }),
    setDelayMs: (ms) => {
      if (!Number.isFinite(ms) || ms < 0) throw new RangeError(`delay must be a non-negative number of ms, got ${ms}`);
      delayMs = ms;
    },
    hold: () => {
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      held = gate;
      return () => {
        if (held === gate) held = undefined;
        release();
      };
    },
    setUnavailable: (value) => {
      unavailable = value;
    },
    stop: () => app.close(),
  };
}
