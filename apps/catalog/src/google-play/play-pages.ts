import type { ReviewSort } from '@appcat/contracts';
import type { Review } from '../store/store-adapter.js';
import { badResponse } from '../upstream/upstream-failures.js';

/*
 * Google Play's pages carry their data as JSON arrays in `AF_initDataCallback({key: 'ds:N', …, data: …,
 * sideChannel: {}})` scripts, and its batchexecute answers as `)]}'`-prefixed frames
 * `["wrb.fr", rpcId, "<payload as JSON text>", …]`. Positions in those arrays are Google's, read the
 * way public scrapers read them in July 2026 (docs/upstream.md, "Google Play").
 */

/** One app as a developer's list shows it: what every Google Play list route answers. */
export interface PlayListedApp {
  appId: string;
  title: string;
  url: string;
  icon?: string;
  developer?: string;
  /** ISO 4217, when the list gives a price. */
  currency?: string;
  /** In units of the currency; 0 for a free app. */
  price: number;
  free: boolean;
  summary?: string;
  scoreText?: string;
  score?: number;
}

/** A page of a developer's apps, and the token of the next page if there is one. */
export interface PlayListPage {
  apps: PlayListedApp[];
  nextToken?: string;
}

type Path = readonly number[];

function at(value: unknown, path: Path): unknown {
  let current = value;
  for (const index of path) {
    if (!Array.isArray(current)) return undefined;
    current = current[index];
  }
  return current;
}

const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);
const number = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);

/** The JSON of every `AF_initDataCallback` script on a page, by its key (`ds:3`); unreadable blocks left out. */
export function scriptBlocks(html: string): Map<string, unknown> {
  const blocks = new Map<string, unknown>();
  for (const match of html.matchAll(
    /AF_initDataCallback\(\{key: '(ds:\d+)'[\s\S]*?data:([\s\S]*?), sideChannel: \{\}\}\);<\/script/g,
  )) {
    try {
      blocks.set(match[1], JSON.parse(match[2]));
    } catch {
      // An unreadable block other than the one asked for does not matter; a missing one is reported by its reader.
    }
  }
  return blocks;
}

/** The payload of `rpcId`'s frame in a batchexecute answer; null when Google answered that rpc with an error frame. */
export function batchPayload(body: string, rpcId: string, host: string): unknown {
  for (const line of body.split('\n')) {
    if (!line.startsWith('[')) continue;
    let frames: unknown;
    try {
      frames = JSON.parse(line);
    } catch {
      continue;
    }
    if (!Array.isArray(frames)) continue;
    for (const frame of frames) {
      if (!Array.isArray(frame) || frame[0] !== 'wrb.fr' || frame[1] !== rpcId) continue;
      if (frame[2] === null) return null;
      try {
        return JSON.parse(String(frame[2]));
      } catch {
        throw badResponse(`a batchexecute ${rpcId} payload that is not JSON`, host);
      }
    }
  }
  throw badResponse(`a batchexecute answer without its ${rpcId} frame`, host);
}

/** Where each field sits in one app entry of a list, for the three shapes lists come in. */
interface ItemLayout {
  appId: Path;
  title: Path;
  url: Path;
  icon: Path;
  developer: Path;
  summary: Path;
  scoreText: Path;
  score: Path;
  /** Price in micros (developer pages) or as display text (continuations). */
  price: Path;
  priceIsText: boolean;
  currency: Path;
}

/** An entry of a developer page reached by id (`/store/apps/dev?id=`). */
const DEV_PAGE_ITEM: ItemLayout = {
  appId: [0, 0],
  title: [3],
  url: [10, 4, 2],
  icon: [1, 3, 2],
  developer: [14],
  summary: [13, 1],
  scoreText: [4, 0],
  score: [4, 1],
  price: [8, 1, 0, 0],
  priceIsText: false,
  currency: [8, 1, 0, 1],
};

/** A developer page reached by name (`/store/apps/developer?id=`) wraps the same entry once more. */
const NAMED_PAGE_ITEM: ItemLayout = Object.fromEntries(
  Object.entries(DEV_PAGE_ITEM).map(([k, v]) => [k, Array.isArray(v) ? [0, ...v] : v]),
) as unknown as ItemLayout;

/** An entry of a `qnKhOb` continuation page (a cluster). */
const CLUSTER_ITEM: ItemLayout = {
  appId: [12, 0],
  title: [2],
  url: [9, 4, 2],
  icon: [1, 1, 0, 3, 2],
  developer: [4, 0, 0, 0],
  summary: [4, 1, 1, 1, 1],
  scoreText: [6, 0, 2, 1, 0],
  score: [6, 0, 2, 1, 1],
  price: [7, 0, 3, 2, 1, 0, 2],
  priceIsText: true,
  currency: [7, 0, 3, 2, 1, 0, 1],
};

function listedApp(entry: unknown, layout: ItemLayout, baseUrl: string): PlayListedApp | undefined {
  const appId = text(at(entry, layout.appId));
  const title = text(at(entry, layout.title));
  const path = text(at(entry, layout.url));
  if (!appId || !title || !path) return undefined;
  const rawPrice = at(entry, layout.price);
  const price = layout.priceIsText
    ? Number.parseFloat(/[0-9]+(?:[.,][0-9]+)?/.exec(text(rawPrice) ?? '')?.[0]?.replace(',', '.') ?? '0')
    : (number(rawPrice) ?? 0) / 1_000_000;
  const app: PlayListedApp = {
    appId,
    title,
    url: new URL(path, baseUrl).href,
    icon: text(at(entry, layout.icon)),
    developer: text(at(entry, layout.developer)),
    currency: text(at(entry, layout.currency)),
    price,
    free: price === 0,
    summary: text(at(entry, layout.summary)),
    scoreText: text(at(entry, layout.scoreText)),
    score: number(at(entry, layout.score)),
  };
  for (const key of Object.keys(app) as (keyof PlayListedApp)[]) if (app[key] === undefined) delete app[key];
  return app;
}

function readEntries(
  entries: unknown,
  layout: ItemLayout,
  baseUrl: string,
  what: string,
  host: string,
): PlayListedApp[] {
  if (!Array.isArray(entries)) throw badResponse(`${what} without its app list`, host);
  const apps = entries.map((entry) => listedApp(entry, layout, baseUrl)).filter((a): a is PlayListedApp => !!a);
  // An entry we cannot read is drift; a page of them is no page at all.
  if (entries.length > 0 && apps.length === 0) throw badResponse(`${what} whose apps are unreadable`, host);
  return apps;
}

/**
 * The first page of a developer's apps from its page's `ds:3` block: at `[0][1][0][21]` on a page
 * reached by id, `[0][1][0][22]` on one reached by name; apps at `[0]`, the next page's token at
 * `[1][3][1]`. A page without it is an answer we cannot read, never an empty list.
 */
export function developerPage(html: string, baseUrl: string, host: string): PlayListPage {
  const block = scriptBlocks(html).get('ds:3');
  if (block === undefined) throw badResponse('a developer page without its ds:3 data', host);
  for (const [index, layout] of [
    [21, DEV_PAGE_ITEM],
    [22, NAMED_PAGE_ITEM],
  ] as const) {
    const root = at(block, [0, 1, 0, index]);
    if (!Array.isArray(root) || !Array.isArray(root[0])) continue;
    const apps = readEntries(root[0], layout, baseUrl, 'a developer page', host);
    if (apps.length === 0) throw badResponse('a developer page listing no apps', host);
    return { apps, nextToken: text(at(root, [1, 3, 1])) };
  }
  throw badResponse('a developer page without its app list', host);
}

/** The rpc that pages a cluster of apps, and the body Google Play's own pages send for the next page. */
export const CLUSTER_RPC = 'qnKhOb';
const CLUSTER_FIELDS = [96, 27, 4, 8, 57, 30, 110, 79, 11, 16, 49, 1, 3, 9, 12, 104, 55, 56, 51, 10, 34, 77];
export const CLUSTER_PAGE_SIZE = 100;

export function clusterPageForm(token: string): string {
  const request = [[null, [[10, [10, CLUSTER_PAGE_SIZE]], true, null, CLUSTER_FIELDS], null, token]];
  return new URLSearchParams({
    'f.req': JSON.stringify([[[CLUSTER_RPC, JSON.stringify(request), null, 'generic']]]),
  }).toString();
}

/**
 * A continuation page: apps at `[0][6][0]`, the next token at `[0][6][7][1]`. Google answers a token
 * past the end with an error frame (payload null): the list has ended.
 */
export function clusterPage(body: string, baseUrl: string, host: string): PlayListPage {
  const payload = batchPayload(body, CLUSTER_RPC, host);
  if (payload === null) return { apps: [] };
  const apps = readEntries(at(payload, [0, 6, 0]), CLUSTER_ITEM, baseUrl, 'a continuation page', host);
  return { apps, nextToken: text(at(payload, [0, 6, 7, 1])) };
}

/** One app as its details page (`/store/apps/details?id=`) describes it. */
export interface PlayAppDetails {
  appId: string;
  url: string;
  title: string;
  summary?: string;
  description?: string;
  installs?: string;
  minInstalls?: number;
  score?: number;
  scoreText?: string;
  ratings?: number;
  reviews?: number;
  /** In units of the currency; 0 for a free app. */
  price: number;
  free: boolean;
  currency?: string;
  developer: string;
  /** The numeric id of the developer's page, as text. */
  developerId?: string;
  genre?: string;
  genreId?: string;
  icon?: string;
  contentRating?: string;
}

/**
 * An app's details from its page's `ds:5` block: the fields sit in `[1][2]` (an array of 150 or so),
 * at the positions public scrapers read in July 2026. A page without them is unreadable, never "no app".
 */
export function appDetails(html: string, appId: string, baseUrl: string, host: string): PlayAppDetails {
  const root = at(scriptBlocks(html).get('ds:5'), [1, 2]);
  if (!Array.isArray(root) || root.length < 100) throw badResponse('an app page without its ds:5 details', host);
  const title = text(at(root, [0, 0]));
  const developer = text(at(root, [68, 0]));
  if (!title || !developer) throw badResponse('an app page without its title or developer', host);
  const micros = number(at(root, [57, 0, 0, 0, 0, 1, 0, 0])) ?? 0;
  const details: PlayAppDetails = {
    appId,
    url: new URL(`/store/apps/details?id=${encodeURIComponent(appId)}`, baseUrl).href,
    title,
    summary: text(at(root, [73, 0, 1])),
    description: text(at(root, [72, 0, 1])),
    installs: text(at(root, [13, 0])),
    minInstalls: number(at(root, [13, 1])),
    score: number(at(root, [51, 0, 1])),
    scoreText: text(at(root, [51, 0, 0])),
    ratings: number(at(root, [51, 2, 1])),
    reviews: number(at(root, [51, 3, 1])),
    price: micros / 1_000_000,
    free: micros === 0,
    currency: text(at(root, [57, 0, 0, 0, 0, 1, 0, 1])),
    developer,
    developerId: /[?&]id=(\d+)/.exec(text(at(root, [68, 1, 4, 2])) ?? '')?.[1],
    genre: text(at(root, [79, 0, 0, 0])),
    genreId: text(at(root, [79, 0, 0, 2])),
    icon: text(at(root, [95, 0, 3, 2])),
    contentRating: text(at(root, [9, 0])),
  };
  for (const key of Object.keys(details) as (keyof PlayAppDetails)[])
    if (details[key] === undefined) delete details[key];
  return details;
}

/** A search's results: the featured exact match first (when Google shows one), then the list. */
export interface PlaySearchPage {
  apps: PlayListedApp[];
  nextToken?: string;
}

/** The exact match a search page features above its list (section `[23]`): a details-like record. */
function featuredApp(section: unknown, baseUrl: string): PlayListedApp | undefined {
  const details = at(section, [23, 16, 2]);
  const appIds = at(section, [23, 16, 3]);
  const appId = text(at(isRecordLike(appIds) ? (appIds as Record<string, unknown>)['12'] : undefined, [0, 0]));
  const title = text(at(details, [0, 0]));
  if (!appId || !title) return undefined;
  const micros = number(at(section, [23, 17, 0, 2, 0, 1, 0, 0])) ?? 0;
  const app: PlayListedApp = {
    appId,
    title,
    url: new URL(`/store/apps/details?id=${encodeURIComponent(appId)}`, baseUrl).href,
    icon: text(at(details, [95, 0, 3, 2])),
    developer: text(at(details, [68, 0])),
    currency: text(at(section, [23, 17, 0, 2, 0, 1, 0, 1])),
    price: micros / 1_000_000,
    free: micros === 0,
    summary: text(at(details, [73, 0, 1])),
    scoreText: text(at(details, [51, 0, 0])),
    score: number(at(details, [51, 0, 1])),
  };
  for (const key of Object.keys(app) as (keyof PlayListedApp)[]) if (app[key] === undefined) delete app[key];
  return app;
}

const isRecordLike = (value: unknown) => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A search page (`/store/search?q=&c=apps`): its `ds:4` block's sections at `[0][1]`; a section with
 * `[22][0]` is the result list (each entry wrapped as on a developer page reached by name), its next
 * page's token at `[22][1][3][1]`; one with `[23]` features the exact match. A page without either is
 * unreadable; a page that says nothing was found has neither list nor match but its sections.
 */
export function searchPage(html: string, baseUrl: string, host: string): PlaySearchPage {
  const sections = at(scriptBlocks(html).get('ds:4'), [0, 1]);
  if (!Array.isArray(sections)) throw badResponse('a search page without its ds:4 sections', host);
  const apps: PlayListedApp[] = [];
  let nextToken: string | undefined;
  for (const section of sections) {
    const featured = featuredApp(section, baseUrl);
    if (featured) apps.push(featured);
    const list = at(section, [22, 0]);
    if (Array.isArray(list)) {
      apps.push(...readEntries(list, NAMED_PAGE_ITEM, baseUrl, 'a search page', host));
      nextToken ??= text(at(section, [22, 1, 3, 1]));
    }
  }
  return { apps, nextToken };
}

/** A search's continuation (`qnKhOb`): apps at `[0][0][0]` in a developer page's entry layout, next token at `[0][0][7][1]`. */
export function searchContinuation(body: string, baseUrl: string, host: string): PlayListPage {
  const payload = batchPayload(body, CLUSTER_RPC, host);
  if (payload === null) return { apps: [] };
  const apps = readEntries(at(payload, [0, 0, 0]), DEV_PAGE_ITEM, baseUrl, 'a search continuation', host);
  return { apps, nextToken: text(at(payload, [0, 0, 7, 1])) };
}

/** The rpc that pages an app's reviews, and the numbers Google Play gives our two orders. */
export const REVIEWS_RPC = 'UsvDTd';
const REVIEW_SORTS: Readonly<Record<ReviewSort, number>> = { helpful: 1, recent: 2 };

/** The body Google Play's pages send for `count` reviews of `appId`, from the start or from `token`. */
export function reviewsForm(appId: string, sort: ReviewSort, count: number, token?: string): string {
  const request = [null, null, [2, REVIEW_SORTS[sort], [count, null, token ?? null], null, []], [appId, 7]];
  return new URLSearchParams({
    'f.req': JSON.stringify([[[REVIEWS_RPC, JSON.stringify(request), null, 'generic']]]),
  }).toString();
}

/** A page of an app's reviews, and the token of the next page if there is one. */
export interface PlayReviewPage {
  reviews: Review[];
  nextToken?: string;
  /** Google answered with an error frame (an unknown app, or a token it does not take). */
  rejected?: true;
}

/** `[seconds, nanos]` as ISO 8601. */
function isoTime(value: unknown): string | undefined {
  const seconds = number(at(value, [0]));
  if (seconds === undefined) return undefined;
  const date = new Date(seconds * 1000 + Math.floor((number(at(value, [1])) ?? 0) / 1_000_000));
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

/**
 * One review: id `[0]`, author `[1][0]` (picture `[1][1][3][2]`), stars `[2]`, text `[4]`, time `[5]`
 * (`[seconds, nanos]`), thumbs up `[6]`, the developer's reply `[7]` (`[name, text, time]`), app version
 * `[10]`. Google Play reviews have no title and their authors no page; it counts thumbs up only, so the
 * vote sum and count are both that.
 */
function review(entry: unknown, appId: string, baseUrl: string): Review | undefined {
  const id = text(at(entry, [0]));
  const userName = text(at(entry, [1, 0]));
  const score = number(at(entry, [2]));
  const updated = isoTime(at(entry, [5]));
  if (!id || !userName || score === undefined || !updated) return undefined;
  const thumbsUp = number(at(entry, [6])) ?? 0;
  const url = new URL('/store/apps/details', baseUrl);
  url.search = new URLSearchParams({ id: appId, reviewId: id }).toString();
  const replyText = text(at(entry, [7, 1]));
  const replyUpdated = isoTime(at(entry, [7, 2]));
  const userImage = text(at(entry, [1, 1, 3, 2]));
  return {
    id,
    appId,
    userName,
    userUrl: '',
    ...(userImage ? { userImage } : {}),
    version: text(at(entry, [10])) ?? '',
    score,
    title: '',
    text: text(at(entry, [4])) ?? '',
    url: url.href,
    updated,
    voteSum: thumbsUp,
    voteCount: thumbsUp,
    ...(replyText ? { reply: { text: replyText, ...(replyUpdated ? { updated: replyUpdated } : {}) } } : {}),
  };
}

/**
 * A `UsvDTd` answer: reviews at `[0]`, the next page's token at `[1][1]`. An error frame (payload null)
 * or a payload without reviews is a page of none; whether that is plausible is the caller's to judge
 * (it knows whether the app is rated). Entries that are there but unreadable are drift.
 */
export function reviewsPage(body: string, appId: string, baseUrl: string, host: string): PlayReviewPage {
  const payload = batchPayload(body, REVIEWS_RPC, host);
  if (payload === null) return { reviews: [], rejected: true };
  if (!Array.isArray(payload)) throw badResponse('a reviews answer that is not a list', host);
  const entries = payload[0] ?? [];
  if (!Array.isArray(entries)) throw badResponse('a reviews answer without its review list', host);
  const reviews = entries.map((entry) => review(entry, appId, baseUrl)).filter((r): r is Review => !!r);
  if (entries.length > 0 && reviews.length === 0)
    throw badResponse('a reviews page whose reviews are unreadable', host);
  return { reviews, nextToken: text(at(payload, [1, 1])) };
}

/** The rpc whose block on an app's page holds its clusters ("More by …", "Similar apps"). */
export const APP_CLUSTERS_RPC = 'ag2B9c';
const SIMILAR_TITLES = new Set(['Similar apps', 'Similar games']);
const CLUSTER_LINK = /^\/store\/apps\/collection\/cluster\?/;

/** Which `ds:N` blocks of a page each rpc filled, from its `AF_dataServiceRequests` table; undefined without one. */
export function serviceRequests(html: string): Map<string, string[]> | undefined {
  const table = /var AF_dataServiceRequests = \{([\s\S]*?)\}; var AF_initDataChunkQueue/.exec(html)?.[1];
  if (table === undefined) return undefined;
  const byRpc = new Map<string, string[]>();
  for (const [, key, rpc] of table.matchAll(/'(ds:\d+)'\s*:\s*\{\s*id:\s*'([^']+)'/g))
    byRpc.set(rpc, [...(byRpc.get(rpc) ?? []), key]);
  return byRpc;
}

/**
 * Where an app's page links its similar apps: among the clusters of its `ag2B9c` block (`[1][1]`), the
 * one titled "Similar apps" or "Similar games" (`[21][1][0]`; the page is asked in English), else the
 * first whose link (`[21][1][2][4][2]`) is a `/store/apps/collection/cluster?…` page. Undefined when the
 * page links none (an app Google shows nothing similar for). A page without its data table is unreadable.
 */
export function similarClusterPath(html: string, host: string): string | undefined {
  const byRpc = serviceRequests(html);
  if (!byRpc) throw badResponse('an app page without its data service table', host);
  const blocks = scriptBlocks(html);
  const links: { title?: string; path: string }[] = [];
  for (const key of byRpc.get(APP_CLUSTERS_RPC) ?? []) {
    const clusters = at(blocks.get(key), [1, 1]);
    if (!Array.isArray(clusters)) continue;
    for (const cluster of clusters) {
      const path = text(at(cluster, [21, 1, 2, 4, 2]));
      if (path && CLUSTER_LINK.test(path)) links.push({ title: text(at(cluster, [21, 1, 0])), path });
    }
  }
  return (links.find((link) => link.title && SIMILAR_TITLES.has(link.title)) ?? links[0])?.path;
}

/**
 * A similar-apps cluster page (`/store/apps/collection/cluster?gsr=…`): its `ds:3` list at
 * `[0][1][0][21]`, laid out as a developer page reached by id. The app's page linked it, so a page
 * listing nothing is implausible: a failure, never an empty list.
 */
export function similarPage(html: string, baseUrl: string, host: string): PlayListedApp[] {
  const root = at(scriptBlocks(html).get('ds:3'), [0, 1, 0, 21]);
  if (!Array.isArray(root)) throw badResponse('a similar apps page without its ds:3 list', host);
  const apps = readEntries(root[0], DEV_PAGE_ITEM, baseUrl, 'a similar apps page', host);
  if (apps.length === 0) throw badResponse('a similar apps page listing no apps', host);
  return apps;
}
