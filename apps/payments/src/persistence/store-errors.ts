import { ErrorCode } from '@appcat/contracts';
import { WireException } from '@appcat/microservice';
import { Logger } from '@nestjs/common';

const logger = new Logger('CreditStores');

/**
 * Runs an operation on Redis and Postgres; any failure that is not already a typed answer means a store
 * could not be used, and goes out as CreditStoreUnavailable. The cause is logged here, never sent.
 */
export async function usingStores<T>(operation: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof WireException) throw error;
    logger.error(`${operation} failed: ${error instanceof Error ? error.message : String(error)}`);
    throw new WireException(ErrorCode.CreditStoreUnavailable, 'credit store unavailable');
  }
}

export function invalidArgument(message: string): WireException {
  return new WireException(ErrorCode.InvalidArgument, message);
}
