import { readConfig } from '@appcat/config';
import type { RateLimitSettings } from './control/rate-limit.js';
import { DEFAULT_SEED } from './server.js';

export interface StoreEmulatorConfig {
  port: number;
  host: string;
  seed: number;
  rateLimit: RateLimitSettings;
}

export function readStoreEmulatorConfig(env: Record<string, string | undefined> = process.env): StoreEmulatorConfig {
  return readConfig(
    (e) => ({
      port: e.int('STORE_EMULATOR_PORT', 4010, { min: 0, max: 65535 }),
      host: e.string('STORE_EMULATOR_HOST', '127.0.0.1'),
      seed: e.int('STORE_EMULATOR_SEED', DEFAULT_SEED, { min: 0, max: 2 ** 31 - 1 }),
      rateLimit: {
        perMinute: e.int('STORE_EMULATOR_RATE_LIMIT_PER_MIN', 0, { min: 0, max: 1_000_000 }),
        ampPerMinute: e.int('STORE_EMULATOR_AMP_RATE_LIMIT_PER_MIN', 0, { min: 0, max: 1_000_000 }),
        windowMs: e.int('STORE_EMULATOR_RATE_LIMIT_WINDOW_MS', 60_000, { min: 1, max: 3_600_000 }),
      },
    }),
    env,
  );
}
