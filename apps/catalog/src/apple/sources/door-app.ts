import { notServed, type Source } from '../../upstream/source-chain.js';
import type { ItunesRecord } from '../itunes-api.js';
import { resourcesOf } from '../web-catalogue.js';
import type { CatalogueDoor } from './catalogue-door.js';
import { softwareRecordOf } from './catalogue-records.js';

export interface AppArgs {
  appId: string;
  country: string;
  lang: string | undefined;
}

/** An app through a door (`apps/{id}`), as Lookup's software record; track ids only (the catalogue knows no bundle identifiers). */
export function doorAppSource(door: CatalogueDoor): Source<AppArgs, ItunesRecord> {
  return {
    name: door.name,
    load: async (a) => {
      if (!/^\d+$/.test(a.appId)) throw notServed('an app by bundle identifier');
      const url = door.urls.app(a.country, a.appId, { lang: a.lang });
      const document = await door.document(url);
      const [app] = document === undefined ? [] : resourcesOf(document, url.host);
      return app === undefined ? undefined : softwareRecordOf(app);
    },
  };
}
