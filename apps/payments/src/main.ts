import { runService } from '@appcat/ops';
import { createPaymentsApp } from './app.js';
import { readPaymentsConfig } from './config/payments-config.js';
import { FacilitatorCheck } from './x402/facilitator-check.js';

void runService({
  name: 'payments',
  readConfig: () => readPaymentsConfig(),
  createApp: createPaymentsApp,
  listen: async (app) => {
    await app.listen();
    return 'payments answering on NATS';
  },
  // Not ready until the facilitator's /supported is read; a configured network it lacks fails start-up.
  startupCheck: async (app, config) => {
    await app.get(FacilitatorCheck).outcome();
    return `x402 facilitator ${config.x402.facilitatorUrl} supports ${config.x402.networks.map((n) => n.name).join(', ')}`;
  },
});
