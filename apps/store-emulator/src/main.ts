import { readStoreEmulatorConfig } from './config.js';
import { startStoreEmulator } from './server.js';

const config = readStoreEmulatorConfig();
const emulator = await startStoreEmulator(config);
console.log(`store emulator (seed ${emulator.seed}) listening on ${emulator.url}`);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void emulator.close().then(() => process.exit(0)));
}
