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
 * Prisma 7 plans queries with a WebAssembly compiler. schema.prisma asks for its size-optimised build
 * (`compilerBuild = "small"`): the client keeps the module's base64 text twice on the heap for the
 * life of the process (the module source and the string), 9 MB for the default build, half that for
 * this one. V8 would also compile it twice:
 * quickly (Liftoff), then again optimised (TurboFan) in the background, keeping both. The optimised copy
 * costs about 30 MB of resident memory per process and buys nothing here: Prisma is off the per-call path
 * (key loads, top-ups, the ledger flush and settlement records). Set before the module is compiled,
 * which Prisma does lazily on first connect; it applies to wasm only.
 */
function keepWasmUnoptimised(): void {
  setFlagsFromString('--liftoff-only');
}

export function createPrisma(pool: pg.Pool): PrismaClient {
  keepWasmUnoptimised();
  return new PrismaClient({ adapter: new PrismaPg(pool) });
}
