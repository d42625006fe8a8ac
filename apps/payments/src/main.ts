import { runService } from '@appcat/ops';
import { readPaymentsConfig } from './config/payments-config.js';

void runService({
  name: 'payments',
  // Credits in Redis, the ledger in Postgres, the facilitator over node:http.
  tracedLibraries: ['ioredis', 'pg', 'http-client'],
  readConfig: () => readPaymentsConfig(),
  // Imported here, after tracing has started (runService), so its modules are instrumented.
  createApp: async (config, options) => (await import('./app.js')).createPaymentsApp(config, options),
  listen: async (app) => {
    await app.listen();
    return 'payments answering on NATS';
  },
  // Not ready until the facilitator's /supported is read; a configured network it lacks fails start-up.
  startupCheck: async (app, config) => {
    const { FacilitatorCheck } = await import('./x402/facilitator-check.js');
    await app.get(FacilitatorCheck).outcome();
    return `x402 facilitator ${config.x402.facilitatorUrl} supports ${config.x402.networks.map((n) => n.name).join(', ')}`;
  },
});
