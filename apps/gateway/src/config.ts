import { MAX_BATCH_ITEMS, STORES, type StoreId } from '@appcat/contracts';
import { type NatsConfig, readConfig, readNatsConfig } from '@appcat/config';
import { type OpsConfig, readOpsConfig } from '@appcat/ops';

export interface GatewayConfig {
  /** The store this address serves: its route table, documents and catalog subjects. */
  store: StoreId;
  host: string;
  port: number;
  /** The address callers use, for links and x402 resource URLs. */
  publicBaseUrl: string;
  nats: NatsConfig;
  /**
   * How long a payment (its settlement at the facilitator) may take over NATS. Well above payments'
   * facilitator timeout, so the caller is never answered 502 for a payment that then settles.
   */
  x402PayTimeoutMs: number;
  /** Largest request body accepted, bytes; priced routes take none. */
  bodyLimitBytes: number;
  /** Trust X-Forwarded-* from the load balancer in front. */
  trustProxy: boolean;
  ops: OpsConfig;
  /** After SIGTERM, how long the gateway keeps serving while reporting unready, so the load balancer stops sending first. */
  shutdownDelayMs: number;
  /** Most debits (and, apart, catalog peeks) of one loop turn sent as one NATS request; 1 sends each alone. */
  rpcBatchMax: number;
  /** How long a served catalog answer is kept near (never past the catalog's own freshness), ms; 0 turns it off. */
  nearCacheMs: number;
  /** Bound on the near cache's memory, bytes. */
  nearCacheMaxBytes: number;
  /**
   * The Solana JSON-RPC the /topup page reads a recent blockhash from before a Solana wallet signs
   * (the one origin its content policy lets it reach besides this one); it must answer browsers (CORS).
   */
  topupSolanaRpcUrl: string;
}

export function readGatewayConfig(env: Record<string, string | undefined> = process.env): GatewayConfig {
  return readConfig((e) => {
    const port = e.int('PORT', 3000, { min: 0, max: 65535 });
    return {
      store: e.oneOf('GATEWAY_STORE', 'apple', STORES),
      host: e.string('HOST', '127.0.0.1'),
      port,
      publicBaseUrl: e.url('PUBLIC_BASE_URL', `http://localhost:${port}`),
      nats: readNatsConfig(e),
      x402PayTimeoutMs: e.int('X402_PAY_TIMEOUT_MS', 35_000, { min: 1000, max: 300_000 }),
      bodyLimitBytes: e.int('BODY_LIMIT_BYTES', 16_384, { min: 1024, max: 1_048_576 }),
      trustProxy: e.bool('TRUST_PROXY', false),
      ops: readOpsConfig(e, 9100),
      shutdownDelayMs: e.int('SHUTDOWN_DELAY_MS', 0, { min: 0, max: 60_000 }),
      rpcBatchMax: e.int('GATEWAY_RPC_BATCH_MAX', 64, { min: 1, max: MAX_BATCH_ITEMS }),
      nearCacheMs: e.int('GATEWAY_NEAR_CACHE_MS', 1000, { min: 0, max: 60_000 }),
      nearCacheMaxBytes: e.int('GATEWAY_NEAR_CACHE_MAX_BYTES', 16_777_216, { min: 0, max: 1_073_741_824 }),
      topupSolanaRpcUrl: e.url('TOPUP_SOLANA_RPC_URL', 'http://127.0.0.1:8899'),
    };
  }, env);
}
