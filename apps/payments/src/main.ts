import { applyHeapGrowthPercent, createJsonLogger, JsonNestLogger, routeConsoleTo } from '@appcat/ops';
import { Logger } from '@nestjs/common';
import { createPaymentsApp } from './app.js';
import { readPaymentsConfig } from './config/payments-config.js';

async function main(): Promise<void> {
  const config = readPaymentsConfig();
  applyHeapGrowthPercent(config.ops.heapGrowthPercent);
  const logger = new JsonNestLogger(createJsonLogger('payments', config.ops.logLevel));
  Logger.overrideLogger(logger);
  routeConsoleTo(logger);
  const app = await createPaymentsApp(config, { logger });
  app.enableShutdownHooks();
  new Logger('payments').log('payments answering on NATS');
}

main().catch((error: unknown) => {
  new Logger('payments').error(error instanceof Error ? error.message : String(error));
  process.exit(1);
});
