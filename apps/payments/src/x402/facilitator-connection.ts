import { PaymentsMetrics } from '@appcat/ops';
import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import type { FacilitatorConfig } from '@x402/core/http';
import { x402ResourceServer } from '@x402/core/server';
import { ExactEvmScheme } from '@x402/evm/exact/server';
import { ExactSvmScheme } from '@x402/svm/exact/server';
import { X402_CONFIG } from '../payments-tokens.js';
import { FacilitatorClient } from './facilitator-client.js';
import { describe, unreachable } from './payment-payload.js';
import type { X402Config, X402Network } from './x402-config.js';

/** The least time between two reads of `/supported` after one failed. */
export const SUPPORTED_RETRY_MS = 2_000;

/**
 * The configured facilitator as @x402/core's resource server sees it: our keep-alive HTTP client and an
 * x402ResourceServer with the exact EVM and SVM schemes on every configured network, whose `/supported`
 * is read once, and again after a failure.
 */
@Injectable()
export class FacilitatorConnection implements OnApplicationShutdown {
  private readonly logger = new Logger('FacilitatorConnection');
  readonly client: FacilitatorClient;
  readonly server: x402ResourceServer;
  private supportedRead: Promise<void> | null = null;
  private lastFailure = 0;

  constructor(
    @Inject(X402_CONFIG) readonly config: X402Config,
    @Inject(PaymentsMetrics) metrics: PaymentsMetrics,
  ) {
    this.client = new FacilitatorClient({
      url: config.facilitatorUrl,
      timeoutMs: config.facilitatorTimeoutMs,
      observe: (operation, outcome, seconds) =>
        metrics.facilitatorRequestSeconds.observe({ operation, outcome }, seconds),
      createAuthHeaders: facilitatorAuthHeaders(config),
    });
    this.server = new x402ResourceServer(this.client);
    for (const network of config.networks) {
      this.server.register(
        network.network as `${string}:${string}`,
        network.kind === 'evm' ? new ExactEvmScheme() : new ExactSvmScheme(),
      );
    }
  }

  /** Resolves once `/supported` has been read; FACILITATOR_UNREACHABLE while it cannot be (retried at most every SUPPORTED_RETRY_MS). */
  ready(): Promise<void> {
    if (this.supportedRead) return this.supportedRead;
    if (Date.now() - this.lastFailure < SUPPORTED_RETRY_MS) return Promise.reject(unreachable());
    this.supportedRead = this.server.initialize().catch((error: unknown) => {
      this.supportedRead = null;
      this.lastFailure = Date.now();
      this.logger.warn(`facilitator /supported failed: ${describe(error)}`);
      throw unreachable();
    });
    return this.supportedRead;
  }

  /** Reads `/supported` again now, whatever an earlier read gave. */
  reread(): Promise<void> {
    this.supportedRead = null;
    this.lastFailure = 0;
    return this.ready();
  }

  /** The configured networks the facilitator's `/supported` lacks (after `ready`). */
  unsupported(): X402Network[] {
    return this.config.networks.filter(
      (n) => !this.server.getSupportedKind(2, n.network as `${string}:${string}`, 'exact'),
    );
  }

  /** The configured network with this CAIP-2 id. */
  network(id: string): X402Network | undefined {
    return this.config.networks.find((network) => network.network === id);
  }

  onApplicationShutdown(): void {
    this.client.close();
  }
}

/**
 * The auth headers each facilitator request carries: for CDP, short-lived JWTs signed with the CDP API
 * key, made by Coinbase's own @coinbase/x402 (createFacilitatorConfig) so they match what CDP checks;
 * otherwise the static bearer token, if any.
 */
function facilitatorAuthHeaders(config: X402Config): FacilitatorConfig['createAuthHeaders'] {
  if (config.facilitator === 'cdp' && config.cdpApiKey) {
    const { id, secret } = config.cdpApiKey;
    // Coinbase's SDK (with axios and jose, about 5 MB of heap) is loaded by the first request, so a
    // replica on another facilitator never holds it.
    let cdpHeaders: Promise<NonNullable<FacilitatorConfig['createAuthHeaders']>> | undefined;
    return async () => {
      cdpHeaders ??= import('@coinbase/x402').then(
        ({ createFacilitatorConfig }) => createFacilitatorConfig(id, secret).createAuthHeaders!,
      );
      return (await cdpHeaders)();
    };
  }
  const token = config.facilitatorAuthToken;
  if (!token) return undefined;
  return async () => {
    const headers = { Authorization: `Bearer ${token}` };
    return { verify: headers, settle: headers, supported: headers };
  };
}
