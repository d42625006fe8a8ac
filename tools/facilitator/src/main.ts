import { readFacilitatorConfig } from './config.js';
import { startDevFacilitator } from './server.js';

const config = readFacilitatorConfig();
const facilitator = await startDevFacilitator(config);
const networks = [
  ...facilitator.networks.map((n) => `${n.network} via ${n.rpcUrl}`),
  ...(facilitator.solana
    ? [`${facilitator.solana.network} via ${facilitator.solana.rpcUrl} (fee payer ${facilitator.solana.feePayer})`]
    : []),
].join(', ');
process.stdout.write(
  `dev facilitator on ${facilitator.url} (settles from ${facilitator.address}; ${networks}` +
    `${config.authToken ? '; bearer token required' : ''}${config.cdpKeys ? '; CDP JWTs required' : ''})\n`,
);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void facilitator.stop().then(() => process.exit(0)));
}
