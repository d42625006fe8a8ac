import type { Source } from '../../upstream/source-chain.js';
import type { ItunesApi, ItunesRecord } from '../itunes-api.js';

/** Search has no offset upstream: the most Apple gives, fetched once and sliced per page. */
export const SEARCH_FETCH_LIMIT = 200;

export interface AppSearchArgs {
  term: string;
  country: string;
  lang: string | undefined;
}

/**
 * iTunes Search (`/search?term=&media=software&entity=software&limit=200`). An empty list stands only
 * once a later source agrees, since a term the store knows never finds nothing.
 */
export function itunesSearchSource(itunes: ItunesApi): Source<AppSearchArgs, ItunesRecord[]> {
  return {
    name: 'itunes',
    load: async (a) => (await itunes.search(a.term, a.country, a.lang, SEARCH_FETCH_LIMIT)).results,
    tentative: (answer) => (answer ?? []).length === 0,
  };
}
