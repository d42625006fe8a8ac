import { readStoreEmulatorConfig } from './config.js';
import { startStoreEmulator } from './server.js';

const config = readStoreEmulatorConfig();
const emulator = await startStoreEmulator(config);
const limits =
  config.rateLimit.perMinute || config.rateLimit.ampPerMinute
    ? ` (rate limit: ${JSON.stringify(config.rateLimit)})`
    : '';
console.log(`store emulator (seed ${emulator.seed}) listening on ${emulator.url}${limits}`);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void emulator.close().then(() => process.exit(0)));
}
