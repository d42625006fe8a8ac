import { runService } from '@appcat/ops';
import { readGatewayConfig } from './config.js';

void runService({
  name: 'gateway',
  // Its requests' spans come from its own Fastify hooks; it calls nothing else but NATS.
  tracedLibraries: [],
  readConfig: () => readGatewayConfig(),
  // Imported here, after tracing has started (runService), so its modules are instrumented.
  createApp: async (config, options) => (await import('./gateway-app.js')).createGatewayApp(config, options),
  listen: async (app, config) => {
    await app.listen(config.port, config.host);
    return `listening on http://${config.host}:${config.port} (public ${config.publicBaseUrl})`;
  },
});
