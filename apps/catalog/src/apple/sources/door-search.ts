import { notServed, type Source } from '../../upstream/source-chain.js';
import { isRecord } from '../../upstream/upstream-failures.js';
import type { ItunesRecord } from '../itunes-api.js';
import { type AmpResource, searchGroup } from '../web-catalogue.js';
import type { CatalogueDoor } from './catalogue-door.js';
import { softwareRecordOf } from './catalogue-records.js';
import { type AppSearchArgs, SEARCH_FETCH_LIMIT } from './itunes-search.js';

/** What search asks for: the types the catalogue's search groups its results by, as the site asks. */
const SEARCH_TYPES = ['apps', 'app-bundles'];
/** The catalogue gives 25 results at most a call. */
const SEARCH_PAGE_LIMIT = 25;

export interface BundleSearchArgs {
  term: string;
  country: string;
  lang: string | undefined;
  page: number;
  pageSize: number;
}

/** One page of a catalogue search's `type` group; a door without search (404) does not serve it. */
async function searchPage(
  door: CatalogueDoor,
  a: { term: string; country: string; lang: string | undefined },
  type: string,
  limit: number,
  offset: number,
): Promise<{ data: AmpResource[]; more: boolean }> {
  const url = door.urls.search(a.country, a.term, { types: SEARCH_TYPES.join(','), limit, offset, lang: a.lang });
  const document = await door.document(url);
  if (document === undefined) throw notServed(`search (${url.host})`);
  const data = searchGroup(document, type, SEARCH_TYPES, url.host);
  const group = isRecord(document.results) ? document.results[type] : undefined;
  return { data, more: isRecord(group) && typeof group.next === 'string' };
}

/** Bundle search through a door (`search?types=apps,app-bundles`, `results["app-bundles"]`), one page per call. */
export function bundleSearchSource(door: CatalogueDoor): Source<BundleSearchArgs, AmpResource[]> {
  return {
    name: door.name,
    load: async (a) => (await searchPage(door, a, 'app-bundles', a.pageSize, (a.page - 1) * a.pageSize)).data,
  };
}

/**
 * App search through a door, as the iTunes records the route answers: up to 200 results, 25 a call,
 * following the group's `next` (what the catalogue gives but Lookup's fields it lacks are absent).
 */
export function appSearchSource(door: CatalogueDoor): Source<AppSearchArgs, ItunesRecord[]> {
  return {
    name: door.name,
    load: async (a) => {
      const records: ItunesRecord[] = [];
      for (let offset = 0; offset < SEARCH_FETCH_LIMIT; offset += SEARCH_PAGE_LIMIT) {
        const { data, more } = await searchPage(door, a, 'apps', SEARCH_PAGE_LIMIT, offset);
        records.push(...data.map((resource) => softwareRecordOf(resource)));
        if (!more || data.length === 0) break;
      }
      return records;
    },
  };
}
