import { PrismaPg } from '@prisma/adapter-pg';
import { setFlagsFromString } from 'node:v8';
import pg from 'pg';
import { PrismaClient } from '../generated/prisma/client.js';

export type { PrismaClient };

/**
 * One pg pool per replica, shared by Prisma (through its pg driver adapter; there is no native engine)
 * and by the few statements Prisma cannot express, such as the ledger's batch upsert. BIGINT columns
 * come back from pg as strings, never as JavaScript numbers.
 */
export function createPool(databaseUrl: string, max: number): pg.Pool {
  const pool = new pg.Pool({ connectionString: databaseUrl, max, connectionTimeoutMillis: 5_000 });
  // An idle client losing its connection must not crash the process; the next query reconnects.
  pool.on('error', () => undefined);
  return pool;
}

/**
 * Prisma 7's query compiler is WebAssembly, which V8 compiles twice (Liftoff, then TurboFan in the
 * background) and keeps both: the optimised copy costs about 30 MB per process and buys nothing, as
 * Prisma is off the per-call path. Set before Prisma compiles it on first connect; it applies to wasm only.
 * (schema.prisma's `compilerBuild = "small"` halves the module text the client keeps on the heap.)
 */
function keepWasmUnoptimised(): void {
  setFlagsFromString('--liftoff-only');
}

export function createPrisma(pool: pg.Pool): PrismaClient {
  keepWasmUnoptimised();
  return new PrismaClient({ adapter: new PrismaPg(pool) });
}
