import { type EmulatorRequest, type Route, text } from '../http.js';
import type { PlayCatalogue, PlayDeveloper } from './play-catalogue.js';
import {
  appDetailsHtml,
  CLUSTER_RPC,
  clusterAnswer,
  clusterErrorAnswer,
  developerPageHtml,
  FIRST_PAGE_SIZE,
  searchContinuationAnswer,
  searchPageHtml,
} from './play-render.js';

export const PLAY_BATCH_PATH = '/_/PlayStoreUi/data/batchexecute';
const HTML = 'text/html; charset=utf-8';
const BATCH = 'application/json; charset=utf-8';
const MAX_PAGE = 100;
/** Results a search page lists before its first continuation. */
const SEARCH_FIRST_PAGE = 20;

/** Where the next page starts: opaque to clients, as Google's tokens are. */
interface PageToken {
  /** A search's term, when the token pages a search rather than a developer. */
  search?: string;
  developer: string;
  country: string;
  offset: number;
}

const encodeToken = (token: PageToken) => Buffer.from(JSON.stringify(token)).toString('base64url');

function decodeToken(value: unknown): PageToken | undefined {
  if (typeof value !== 'string') return undefined;
  try {
    const token = JSON.parse(Buffer.from(value, 'base64url').toString('utf8')) as PageToken;
    return typeof token.developer === 'string' && typeof token.country === 'string' && Number.isInteger(token.offset)
      ? token
      : undefined;
  } catch {
    return undefined;
  }
}

/** The token and page size of a `qnKhOb` request body (`f.req`), as Google Play's pages send it. */
function clusterRequest(body: string): { token: unknown; size: number } | undefined {
  try {
    const envelope = JSON.parse(new URLSearchParams(body).get('f.req') ?? '') as unknown[][][];
    const [rpc, inner] = envelope[0][0] as [string, string];
    if (rpc !== CLUSTER_RPC) return undefined;
    const request = JSON.parse(inner) as unknown[][];
    const size = (request[0][1] as unknown[][])[0][1] as number[];
    return { token: request[0][3], size: Math.min(MAX_PAGE, Math.max(1, Number(size[1]) || MAX_PAGE)) };
  } catch {
    return undefined;
  }
}

const country = (request: EmulatorRequest) => (request.query.get('gl') ?? 'us').toLowerCase();

/**
 * Google Play's side: app details pages (`/store/apps/details?id=`), developer pages by id (`/store/apps/dev?id=`) and by name
 * (`/store/apps/developer?id=`), with their first apps and a token, and the `batchexecute`
 * continuations the token pages through. An unknown developer, or one selling nothing in that
 * country, is a 404 page.
 */
export function googlePlayRoutes(catalogue: PlayCatalogue): Route[] {
  const page = (request: EmulatorRequest, by: 'id' | 'name') => {
    const id = request.query.get('id') ?? '';
    const developer = by === 'id' && !/^\d+$/.test(id) ? undefined : catalogue.developer(id, by);
    const cc = country(request);
    const apps = developer ? catalogue.appsIn(developer, cc) : [];
    if (!developer || apps.length === 0) return text(404, '<!doctype html><html><body>Not Found</body></html>', HTML);
    const next =
      apps.length > FIRST_PAGE_SIZE
        ? encodeToken({ developer: developer.id, country: cc, offset: FIRST_PAGE_SIZE })
        : undefined;
    return text(200, developerPageHtml(developer, apps.slice(0, FIRST_PAGE_SIZE), cc, by, next), HTML);
  };

  const continuation = (request: EmulatorRequest) => {
    if (request.method !== 'POST' || request.query.get('rpcids') !== CLUSTER_RPC)
      return text(400, '<html><body>Bad Request</body></html>', HTML);
    const asked = clusterRequest(request.body ?? '');
    if (!asked) return text(400, '<html><body>Bad Request</body></html>', HTML);
    const token = decodeToken(asked.token);
    if (token?.search !== undefined) {
      const found = catalogue.search(token.search, token.country);
      if (token.offset >= found.length) return text(200, clusterErrorAnswer(), BATCH);
      const end = token.offset + asked.size;
      const next = end < found.length ? encodeToken({ ...token, offset: end }) : undefined;
      return text(200, searchContinuationAnswer(found.slice(token.offset, end), token.country, next), BATCH);
    }
    const developer: PlayDeveloper | undefined = token && catalogue.developer(token.developer, 'id');
    const apps = developer && token ? catalogue.appsIn(developer, token.country) : [];
    if (!developer || !token || token.offset >= apps.length) return text(200, clusterErrorAnswer(), BATCH);
    const end = token.offset + asked.size;
    const next = end < apps.length ? encodeToken({ ...token, offset: end }) : undefined;
    return text(200, clusterAnswer(developer, apps.slice(token.offset, end), token.country, next), BATCH);
  };

  const details = (request: EmulatorRequest) => {
    const cc = country(request);
    const found = catalogue.app(request.query.get('id') ?? '', cc);
    if (!found) return text(404, '<!doctype html><html><body>Not Found</body></html>', HTML);
    return text(200, appDetailsHtml(found.app, found.developer, cc), HTML);
  };

  const search = (request: EmulatorRequest) => {
    const term = (request.query.get('q') ?? '').trim().toLowerCase();
    const cc = country(request);
    const found = catalogue.search(term, cc);
    const featured = found[0]?.app.title.toLowerCase() === term ? found[0] : undefined;
    const listed = found.slice(featured ? 1 : 0, (featured ? 1 : 0) + SEARCH_FIRST_PAGE);
    const offset = (featured ? 1 : 0) + listed.length;
    const next = offset < found.length ? encodeToken({ search: term, developer: '', country: cc, offset }) : undefined;
    return text(200, searchPageHtml(featured, listed, cc, next), HTML);
  };

  return [
    (request) => (request.path === '/store/search' ? search(request) : undefined),
    (request) => (request.path === '/store/apps/details' ? details(request) : undefined),
    (request) => (request.path === '/store/apps/dev' ? page(request, 'id') : undefined),
    (request) => (request.path === '/store/apps/developer' ? page(request, 'name') : undefined),
    (request) => (request.path === PLAY_BATCH_PATH ? continuation(request) : undefined),
  ];
}
