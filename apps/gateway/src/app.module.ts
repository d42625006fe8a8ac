import { GatewayMetrics, opsProviders } from '@appcat/ops';
import { type DynamicModule, Module } from '@nestjs/common';
import { GATEWAY_CONFIG } from './config.provider.js';
import type { GatewayConfig } from './config.js';
import { CreditsClient } from './credits/credits.client.js';
import { CreditsController } from './credits/credits.controller.js';
import { ChallengeExtensions } from './discovery/challenge-extensions.js';
import { DiscoveryDocuments } from './discovery/discovery-documents.js';
import { DiscoveryController } from './discovery/discovery.controller.js';
import { X402DiscoveryService } from './discovery/x402-discovery.service.js';
import { ErrorAnswers } from './errors/error-answers.js';
import { PreRouteAnswers } from './http/pre-route-answers.js';
import { NatsRpcShutdown, gatewayRpcProvider, natsRpcProvider } from './nats-rpc.provider.js';
import { McpEndpointRegistrar } from './mcp/mcp-endpoint.registrar.js';
import { McpToolCallsService } from './mcp/mcp-tool-calls.service.js';
import { GatewayReadiness } from './ops/gateway-readiness.js';
import { HealthController } from './ops/health.controller.js';
import { PaymentChallenge } from './payment/payment-challenge.js';
import { X402Checkout } from './payment/x402-checkout.js';
import { X402Rpc } from './payment/x402-rpc.js';
import { CatalogClient } from './priced/catalog.client.js';
import { PricedCallService } from './priced/priced-call.service.js';
import { IdempotencyClient } from './idempotency/idempotency.client.js';
import { RememberedCalls } from './idempotency/remembered-calls.js';
import { PricedRoutesRegistrar } from './priced/priced-routes.registrar.js';
import { TopUpPageController } from './topup-page/topup-page.controller.js';

@Module({})
export class GatewayModule {
  static forRoot(config: GatewayConfig): DynamicModule {
    return {
      module: GatewayModule,
      controllers: [CreditsController, HealthController, TopUpPageController, DiscoveryController],
      providers: [
        { provide: GATEWAY_CONFIG, useValue: config },
        ...opsProviders({
          service: 'gateway',
          ops: config.ops,
          shutdownDelayMs: config.shutdownDelayMs,
          metrics: GatewayMetrics,
          readiness: GatewayReadiness,
        }),
        natsRpcProvider,
        gatewayRpcProvider,
        NatsRpcShutdown,
        ErrorAnswers,
        PreRouteAnswers,
        CreditsClient,
        CatalogClient,
        X402Rpc,
        ChallengeExtensions,
        PaymentChallenge,
        DiscoveryDocuments,
        X402DiscoveryService,
        X402Checkout,
        IdempotencyClient,
        RememberedCalls,
        PricedCallService,
        PricedRoutesRegistrar,
        McpToolCallsService,
        McpEndpointRegistrar,
      ],
    };
  }
}
