import { WireException } from '@appcat/microservice';
import { isUpstreamFailure } from '../../upstream/upstream-failures.js';

/**
 * One way of getting a resource from the store: its name (in failures and docs) and its load, which
 * answers the resource, undefined when the store says it does not exist, or throws the upstream's
 * failure (an implausible answer included). `serves` false: this source has no such resource (the
 * marketing feed has no grossing chart); it is passed over without a request.
 */
export interface Source<T> {
  name: string;
  serves?: boolean;
  load(): Promise<T | undefined>;
}

/**
 * The first answer of the sources, tried in order: the next one is asked when one fails or answers
 * implausibly. A "does not exist" is the store's answer and ends the chain. When every source
 * fails, the failure names each one's reason and keeps the last one's code (its throttling, its
 * timeout), so a caller never gets an implausible answer as data.
 */
export async function firstAnswer<T>(what: string, sources: Source<T>[]): Promise<T | undefined> {
  const tried = sources.filter((s) => s.serves !== false);
  const reasons: string[] = [];
  let last: WireException | undefined;
  for (const source of tried) {
    try {
      return await source.load();
    } catch (error) {
      if (!isUpstreamFailure(error)) throw error;
      if (tried.length === 1) throw error;
      last = error;
      reasons.push(`${source.name}: ${error.message}`);
    }
  }
  if (!last) throw new Error(`no source serves ${what}`);
  throw new WireException(last.code, `no upstream source answered ${what} (${reasons.join('; ')})`);
}
