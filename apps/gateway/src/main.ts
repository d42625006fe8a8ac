import { applyHeapGrowthPercent, createJsonLogger, JsonNestLogger, routeConsoleTo } from '@appcat/ops';
import { Logger } from '@nestjs/common';
import { readGatewayConfig } from './config.js';
import { createGatewayApp } from './gateway-app.js';

async function main(): Promise<void> {
  const config = readGatewayConfig();
  applyHeapGrowthPercent(config.ops.heapGrowthPercent);
  const logger = new JsonNestLogger(createJsonLogger('gateway', config.ops.logLevel));
  Logger.overrideLogger(logger);
  routeConsoleTo(logger);
  const app = await createGatewayApp(config, { logger });
  await app.listen(config.port, config.host);
  new Logger('Gateway').log(`listening on http://${config.host}:${config.port} (public ${config.publicBaseUrl})`);
}

main().catch((error: unknown) => {
  new Logger('Gateway').error(error instanceof Error ? error.message : String(error));
  process.exit(1);
});
