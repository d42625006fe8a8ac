import type { Source } from '../../upstream/source-chain.js';
import type { ItunesRecord } from '../itunes-api.js';
import { relatedData, resourcesOf } from '../web-catalogue.js';
import type { CatalogueDoor } from './catalogue-door.js';
import { artistRecordOf, softwareRecordOf } from './catalogue-records.js';
import { DEVELOPER_STOREFRONT } from './itunes-developer.js';

/** A developer through a door (`developers/{id}?include=apps`), as Lookup's artist record then its software records. */
export function doorDeveloperSource(door: CatalogueDoor): Source<{ artistId: string }, ItunesRecord[]> {
  return {
    name: door.name,
    load: async ({ artistId }) => {
      const url = door.urls.developer(DEVELOPER_STOREFRONT, artistId, { include: 'apps' });
      const document = await door.document(url);
      const [developer] = document === undefined ? [] : resourcesOf(document, url.host);
      if (developer === undefined) return undefined;
      return [
        artistRecordOf(developer),
        ...relatedData(developer, 'apps').map((app) => softwareRecordOf(app, artistId)),
      ];
    },
  };
}
