import { applyHeapGrowthPercent, createJsonLogger, JsonNestLogger, routeConsoleTo } from '@appcat/ops';
import { Logger } from '@nestjs/common';
import { createPaymentsApp } from './app.js';
import { readPaymentsConfig } from './config/payments-config.js';
import { X402Payments } from './x402/x402-payments.js';

async function main(): Promise<void> {
  const config = readPaymentsConfig();
  applyHeapGrowthPercent(config.ops.heapGrowthPercent);
  const logger = new JsonNestLogger(createJsonLogger('payments', config.ops.logLevel));
  Logger.overrideLogger(logger);
  routeConsoleTo(logger);
  const app = await createPaymentsApp(config, { logger });
  app.enableShutdownHooks();
  new Logger('payments').log('payments answering on NATS');
  // Not ready until the facilitator's /supported is read; a configured network it lacks fails start-up.
  await app.get(X402Payments).facilitatorCheck;
  new Logger('payments').log(`x402 facilitator ${config.x402.facilitatorUrl} supports ${config.x402.networks.map((n) => n.name).join(', ')}`);
}

main().catch((error: unknown) => {
  new Logger('payments').error(error instanceof Error ? error.message : String(error));
  process.exit(1);
});
