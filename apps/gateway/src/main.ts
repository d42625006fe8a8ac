import { runService } from '@appcat/ops';
import { readGatewayConfig } from './config.js';
import { createGatewayApp } from './gateway-app.js';

void runService({
  name: 'gateway',
  readConfig: () => readGatewayConfig(),
  createApp: createGatewayApp,
  listen: async (app, config) => {
    await app.listen(config.port, config.host);
    return `listening on http://${config.host}:${config.port} (public ${config.publicBaseUrl})`;
  },
});
