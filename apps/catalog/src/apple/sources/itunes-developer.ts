import type { Source } from '../../upstream/source-chain.js';
import type { ItunesApi, ItunesRecord } from '../itunes-api.js';

const DEVELOPER_APPS_LIMIT = 200;
/**
 * The developers route takes no storefront. Lookup without `country` answers from Apple's default
 * storefront, which is the US today; we name it, so the answer cannot change with Apple's default.
 */
export const DEVELOPER_STOREFRONT = 'us';

/** Lookup of an artist id with its apps (`lookup?id=&entity=software&limit=200`): the artist record first; undefined for an id that is not a developer's. */
export function itunesDeveloperSource(itunes: ItunesApi): Source<{ artistId: string }, ItunesRecord[]> {
  return {
    name: 'itunes',
    load: async ({ artistId }) => {
      const { results } = await itunes.lookup('id', [artistId], {
        country: DEVELOPER_STOREFRONT,
        limit: DEVELOPER_APPS_LIMIT,
      });
      const own = results.filter(
        (r) => String(r.artistId) === artistId && (r.wrapperType === 'artist' || r.wrapperType === 'software'),
      );
      return own[0]?.wrapperType === 'artist' ? own : undefined;
    },
  };
}
