import { runService } from '@appcat/ops';
import { readCatalogConfig } from './config.js';

void runService({
  name: 'catalog',
  // The cache in Redis, the upstream store over undici.
  tracedLibraries: ['ioredis', 'undici'],
  readConfig: () => readCatalogConfig(),
  // Imported here, after tracing has started (runService), so its modules are instrumented.
  createApp: async (config, options) => (await import('./catalog-app.js')).createCatalogApp(config, options),
  listen: async (app, config) => {
    await app.listen();
    return `catalog (${config.store} store) answering on NATS ${config.nats.servers.join(', ')}`;
  },
});
