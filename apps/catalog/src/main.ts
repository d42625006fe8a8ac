import { applyHeapGrowthPercent, createJsonLogger, JsonNestLogger, routeConsoleTo } from '@appcat/ops';
import { Logger } from '@nestjs/common';
import { createCatalogApp } from './catalog-app.js';
import { readCatalogConfig } from './config.js';

async function main(): Promise<void> {
  const config = readCatalogConfig();
  applyHeapGrowthPercent(config.ops.heapGrowthPercent);
  const logger = new JsonNestLogger(createJsonLogger('catalog', config.ops.logLevel));
  Logger.overrideLogger(logger);
  routeConsoleTo(logger);
  const app = await createCatalogApp(config, { logger });
  app.enableShutdownHooks();
  await app.listen();
  new Logger('catalog').log(`catalog (${config.store} store) answering on NATS ${config.nats.servers.join(', ')}`);
}

main().catch((error: unknown) => {
  new Logger('catalog').error(error instanceof Error ? error.message : String(error));
  process.exit(1);
});
