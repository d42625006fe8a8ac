import { runService } from '@appcat/ops';
import { createCatalogApp } from './catalog-app.js';
import { readCatalogConfig } from './config.js';

void runService({
  name: 'catalog',
  readConfig: () => readCatalogConfig(),
  createApp: createCatalogApp,
  listen: async (app, config) => {
    await app.listen();
    return `catalog (${config.store} store) answering on NATS ${config.nats.servers.join(', ')}`;
  },
});
