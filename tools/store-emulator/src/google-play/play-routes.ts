import { type EmulatorRequest, type Route, text } from '../http.js';
import type { PlayCatalogue, PlayDeveloper } from './play-catalogue.js';
import {
  appDetailsHtml,
  CLUSTER_RPC,
  clusterAnswer,
  clusterErrorAnswer,
  developerPageHtml,
  FIRST_PAGE_SIZE,
  REVIEWS_RPC,
  reviewsAnswer,
  searchContinuationAnswer,
  searchPageHtml,
  similarPageHtml,
} from './play-render.js';

export const PLAY_BATCH_PATH = '/_/PlayStoreUi/data/batchexecute';
const SIMILAR_CLUSTER_PATH = '/store/apps/collection/cluster';

/** The cluster page of the apps similar to `appId`, as its details page links it. */
const similarPath = (appId: string) =>
  `${SIMILAR_CLUSTER_PATH}?gsr=${Buffer.from(JSON.stringify({ similar: appId })).toString('base64url')}`;
const HTML = 'text/html; charset=utf-8';
const BATCH = 'application/json; charset=utf-8';
const MAX_PAGE = 100;
/** Most reviews one UsvDTd request is answered with. */
const MAX_REVIEWS_PAGE = 199;
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

/** Where the next page of an app's reviews starts, in one order. */
interface ReviewsToken {
  reviews: string;
  order: 'recent' | 'helpful';
  offset: number;
}

function decodeReviewsToken(value: unknown): ReviewsToken | undefined {
  if (typeof value !== 'string') return undefined;
  try {
    const token = JSON.parse(Buffer.from(value, 'base64url').toString('utf8')) as ReviewsToken;
    return typeof token.reviews === 'string' && Number.isInteger(token.offset) ? token : undefined;
  } catch {
    return undefined;
  }
}

/** The rpc and its request of a batchexecute body (`f.req`), as Google Play's pages send it. */
function batchRequest(body: string): { rpc: string; request: unknown[] } | undefined {
  try {
    const envelope = JSON.parse(new URLSearchParams(body).get('f.req') ?? '') as unknown[][][];
    const [rpc, inner] = envelope[0][0] as [string, string];
    const request = JSON.parse(inner) as unknown;
    return typeof rpc === 'string' && Array.isArray(request) ? { rpc, request } : undefined;
  } catch {
    return undefined;
  }
}

/** The token and page size of a `qnKhOb` request. */
function clusterRequest(request: unknown[]): { token: unknown; size: number } | undefined {
  try {
    const first = request[0] as unknown[];
    const size = (first[1] as unknown[][])[0][1] as number[];
    return { token: first[3], size: Math.min(MAX_PAGE, Math.max(1, Number(size[1]) || MAX_PAGE)) };
  } catch {
    return undefined;
  }
}

/** The app, order, count and token of a `UsvDTd` request: `[null, null, [2, order, [count, null, token], null, []], [appId, 7]]`. */
function reviewsRequest(
  request: unknown[],
): { appId: string; order: 'recent' | 'helpful'; count: number; token: unknown } | undefined {
  const options = request[2] as unknown[] | undefined;
  const appId = (request[3] as unknown[] | undefined)?.[0];
  const paging = options?.[2] as unknown[] | undefined;
  if (typeof appId !== 'string' || !Array.isArray(paging)) return undefined;
  return {
    appId,
    // Google Play numbers its orders: 1 most helpful, 2 newest (3, by rating, is served as newest).
    order: options?.[1] === 1 ? 'helpful' : 'recent',
    count: Math.min(MAX_REVIEWS_PAGE, Math.max(1, Number(paging[0]) || 40)),
    token: paging[2],
  };
}

const country = (request: EmulatorRequest) => (request.query.get('gl') ?? 'us').toLowerCase();

/**
 * Google Play's side: app details pages (`/store/apps/details?id=`, with their clusters and the similar
 * cluster link), similar-apps cluster pages (`/store/apps/collection/cluster?gsr=`), developer pages by
 * id (`/store/apps/dev?id=`) and by name (`/store/apps/developer?id=`), with their first apps and a
 * token, a search page, and `batchexecute`: `qnKhOb` continuations the tokens page through and `UsvDTd`
 * reviews pages. An unknown developer, or one selling nothing in that country, is a 404 page.
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

  const reviews = (request: EmulatorRequest, asked: NonNullable<ReturnType<typeof reviewsRequest>>) => {
    const found = catalogue.app(asked.appId, country(request));
    if (!found) return text(200, clusterErrorAnswer(REVIEWS_RPC), BATCH);
    let offset = 0;
    if (asked.token !== null && asked.token !== undefined) {
      const token = decodeReviewsToken(asked.token);
      if (!token || token.reviews !== asked.appId || token.order !== asked.order)
        return text(200, clusterErrorAnswer(REVIEWS_RPC), BATCH);
      offset = token.offset;
    }
    const all = catalogue.reviews(found.app, asked.order);
    const end = offset + asked.count;
    const next =
      end < all.length
        ? Buffer.from(JSON.stringify({ reviews: asked.appId, order: asked.order, offset: end })).toString('base64url')
        : undefined;
    return text(200, reviewsAnswer(all.slice(offset, end), next), BATCH);
  };

  /** batchexecute answers the rpc its body names (the `rpcids` query is informational, as scrapers' mismatched ones show). */
  const batch = (request: EmulatorRequest) => {
    if (request.method !== 'POST') return text(400, '<html><body>Bad Request</body></html>', HTML);
    const asked = batchRequest(request.body ?? '');
    if (asked?.rpc === REVIEWS_RPC) {
      const reviewsAsked = reviewsRequest(asked.request);
      return reviewsAsked ? reviews(request, reviewsAsked) : text(400, '<html><body>Bad Request</body></html>', HTML);
    }
    if (asked?.rpc === CLUSTER_RPC) return continuation(asked.request);
    return text(400, '<html><body>Bad Request</body></html>', HTML);
  };

  const continuation = (clusterAsked: unknown[]) => {
    const asked = clusterRequest(clusterAsked);
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
    const similar = found.app.reviewCount > 0 ? similarPath(found.app.appId) : undefined;
    return text(200, appDetailsHtml(found.app, found.developer, cc, similar), HTML);
  };

  /** A similar-apps cluster page: its gsr names the app (opaque to clients, as Google's is). */
  const cluster = (request: EmulatorRequest) => {
    const cc = country(request);
    let appId = '';
    try {
      appId =
        (JSON.parse(Buffer.from(request.query.get('gsr') ?? '', 'base64url').toString('utf8')) as { similar?: string })
          .similar ?? '';
    } catch {
      // Not a cluster we linked: Google's 404.
    }
    const found = catalogue.app(appId, cc);
    const listed = found ? catalogue.similar(found.app, cc) : [];
    if (listed.length === 0) return text(404, '<!doctype html><html><body>Not Found</body></html>', HTML);
    return text(200, similarPageHtml(listed, cc, similarPath(appId)), HTML);
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
    (request) => (request.path === SIMILAR_CLUSTER_PATH ? cluster(request) : undefined),
    (request) => (request.path === PLAY_BATCH_PATH ? batch(request) : undefined),
  ];
}
