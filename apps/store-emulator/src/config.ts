import { readConfig } from '@appcat/config';
import { DEFAULT_SEED } from './server.js';

export interface StoreEmulatorConfig {
  port: number;
  host: string;
  seed: number;
}

export function readStoreEmulatorConfig(env: Record<string, string | undefined> = process.env): StoreEmulatorConfig {
  return readConfig(
    (e) => ({
      port: e.int('STORE_EMULATOR_PORT', 4010, { min: 0, max: 65535 }),
      host: e.string('STORE_EMULATOR_HOST', '127.0.0.1'),
      seed: e.int('STORE_EMULATOR_SEED', DEFAULT_SEED, { min: 0, max: 2 ** 31 - 1 }),
    }),
    env,
  );
}
