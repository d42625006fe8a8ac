import type { PlayApp, PlayDeveloper, PlayReview } from './play-catalogue.js';

/*
 * Google Play's page structures, as the site writes them (and public scrapers read them, July 2026):
 * a developer page holds its first apps in an `AF_initDataCallback` `ds:3` block, at [0][1][0][21]
 * when reached by id and [0][1][0][22], each entry wrapped once more, when reached by name, with the
 * next page's token at [1][3][1] of that root; `batchexecute` answers `)]}'` and frames
 * `["wrb.fr", rpcId, "<payload JSON>", …]`, a continuation's apps at [0][6][0] and token at [0][6][7][1].
 */

/** Apps on a developer page before the first continuation. */
export const FIRST_PAGE_SIZE = 10;
export const CLUSTER_RPC = 'qnKhOb';
/** The rpc that pages an app's reviews. */
export const REVIEWS_RPC = 'UsvDTd';
/** The rpc whose block on an app's page holds its clusters ("More by …", "Similar apps"). */
const APP_CLUSTERS_RPC = 'ag2B9c';

const CURRENCIES: Readonly<Record<string, [code: string, symbol: string, perUsd: number]>> = {
  us: ['USD', '$', 1],
  gb: ['GBP', '£', 0.8],
  de: ['EUR', '€', 0.9],
  fr: ['EUR', '€', 0.9],
  jp: ['JPY', '¥', 150],
  br: ['BRL', 'R$', 5],
};

function price(app: PlayApp, country: string): { micros: number; currency: string; text?: string } {
  const [currency, symbol, perUsd] = CURRENCIES[country] ?? CURRENCIES.us;
  if (app.priceUsdMicros === 0) return { micros: 0, currency };
  // Prices end in whole cents, or whole yen.
  const step = currency === 'JPY' ? 1_000_000 : 10_000;
  const micros = Math.round((app.priceUsdMicros * perUsd) / step) * step;
  return { micros, currency, text: `${symbol}${(micros / 1_000_000).toFixed(currency === 'JPY' ? 0 : 2)}` };
}

const detailsPath = (app: PlayApp) => `/store/apps/details?id=${app.appId}`;
const iconEntry = (app: PlayApp) => [null, 2, [512, 512], [null, null, app.icon], null, null, null, null, null, 2];

/** One entry of a developer page (reached by id). */
function pageEntry(app: PlayApp, developer: PlayDeveloper, country: string): unknown[] {
  const { micros, currency } = price(app, country);
  const entry: unknown[] = Array(15).fill(null);
  entry[0] = [app.appId, 7];
  entry[1] = iconEntry(app);
  entry[3] = app.title;
  entry[4] = [app.score.toFixed(1), app.score];
  entry[8] = [null, [[micros, currency]]];
  entry[10] = [null, null, null, null, [null, null, detailsPath(app)]];
  entry[13] = [null, app.summary];
  entry[14] = developer.name;
  return entry;
}

/** One entry of a continuation (the cluster layout). */
function clusterEntry(app: PlayApp, developer: PlayDeveloper, country: string): unknown[] {
  const { currency, text } = price(app, country);
  return [
    null,
    [null, [iconEntry(app), iconEntry(app)], 2, 2],
    app.title,
    null,
    [
      [[developer.name, [null, null, null, null, [null, null, `/store/apps/dev?id=${developer.id}`]], true]],
      [null, [null, [null, app.summary]]],
    ],
    null,
    [[null, null, [null, [app.score.toFixed(1), app.score]]]],
    text ? [[null, null, null, [null, null, [null, [[null, currency, text]]]]]] : null,
    [5, 5, 5],
    [null, null, null, null, [null, null, detailsPath(app)]],
    null,
    ['emulator'],
    [app.appId, 7],
  ];
}

const GENRES = [
  ['Tools', 'TOOLS'],
  ['Arcade', 'GAME_ARCADE'],
  ['Productivity', 'PRODUCTIVITY'],
  ['Communication', 'COMMUNICATION'],
] as const;

/** Sets `value` at `path` in `root`, making the arrays on the way. */
function put(root: unknown[], path: readonly number[], value: unknown): void {
  let node = root;
  for (const index of path.slice(0, -1)) {
    if (!Array.isArray(node[index])) node[index] = [];
    node = node[index] as unknown[];
  }
  node[path[path.length - 1]] = value;
}

/** An app's details page: its `ds:5` block, the fields at [1][2] where Google Play puts them. */
export function appDetailsHtml(
  app: PlayApp,
  developer: PlayDeveloper,
  country: string,
  similarPath: string | undefined,
): string {
  const { micros, currency } = price(app, country);
  const installs = 10 ** (3 + (Math.round(app.score * 1000) % 6));
  const [genre, genreId] = GENRES[app.appId.length % GENRES.length];
  const root: unknown[] = Array(155).fill(null);
  put(root, [0, 0], app.title);
  put(root, [9, 0], 'Everyone');
  root[13] = [`${installs.toLocaleString('en-US')}+`, installs, installs * 2];
  if (app.reviewCount > 0)
    root[51] = [[app.score.toFixed(1), app.score], null, [null, installs / 10], [null, app.reviewCount]];
  put(root, [57, 0, 0, 0, 0, 1, 0], [micros, currency]);
  root[68] = [developer.name, [null, null, null, null, [null, null, `/store/apps/dev?id=${developer.id}`]]];
  put(root, [72, 0, 1], `${app.summary} ${app.title} works the way you do.`);
  put(root, [73, 0, 1], app.summary);
  put(root, [79, 0, 0], [genre, null, genreId]);
  put(root, [95, 0, 3, 2], app.icon);
  const data = [null, [null, null, root]];
  // The clusters under the details: "More by" the developer always, "Similar apps" when Google has some.
  const cluster = (title: string, path: string) =>
    Object.assign(Array(22).fill(null), { 21: [null, [title, null, [null, null, null, null, [null, null, path]]]] });
  const clusters = [cluster(`More by ${developer.name}`, `/store/apps/dev?id=${developer.id}`)];
  if (similarPath) clusters.push(cluster('Similar apps', similarPath));
  return [
    '<!doctype html><html lang="en"><head><base href="https://play.google.com/">',
    `<title>${app.title} - Apps on Google Play</title></head><body>`,
    `<script nonce="emulator">var AF_initDataKeys = ["ds:5","ds:8"]; var AF_dataServiceRequests = {'ds:5' : {id:'Ws7gDc',request:[]},'ds:8' : {id:'${APP_CLUSTERS_RPC}',request:[]}}; var AF_initDataChunkQueue = [];</script>`,
    `<script class="ds:5" nonce="emulator">AF_initDataCallback({key: 'ds:5', hash: '7', data:${scriptJson(data)}, sideChannel: {}});</script>`,
    `<script class="ds:8" nonce="emulator">AF_initDataCallback({key: 'ds:8', hash: '35', data:${scriptJson([null, [null, clusters]])}, sideChannel: {}});</script>`,
    '</body></html>',
  ].join('');
}

/** A similar-apps cluster page (`/store/apps/collection/cluster?gsr=`): its `ds:3` list laid out as a developer page's. */
export function similarPageHtml(
  listed: readonly { app: PlayApp; developer: PlayDeveloper }[],
  country: string,
  selfPath: string,
): string {
  const root: unknown[] = Array(22).fill(null);
  root[21] = [
    listed.map(({ app, developer }) => pageEntry(app, developer, country)),
    ['Similar apps', null, [null, null, null, null, [null, null, selfPath]], [null, null]],
  ];
  return [
    '<!doctype html><html lang="en"><head><base href="https://play.google.com/"><title>Similar apps - Android Apps on Google Play</title></head><body>',
    `<script class="ds:3" nonce="emulator">AF_initDataCallback({key: 'ds:3', hash: '6', data:${scriptJson([[null, [root]]])}, sideChannel: {}});</script>`,
    '</body></html>',
  ].join('');
}

/** One review as a `UsvDTd` answer lists it. */
function reviewEntry(review: PlayReview): unknown[] {
  const entry: unknown[] = Array(17).fill(null);
  entry[0] = review.id;
  entry[1] = [review.userName, [null, 2, null, [null, null, review.userImage]]];
  entry[2] = review.score;
  entry[4] = review.text;
  entry[5] = [review.seconds, 77_000_000];
  entry[6] = review.thumbsUp;
  if (review.reply) entry[7] = ['Developer', review.reply.text, [review.reply.seconds, 0]];
  entry[10] = review.version;
  entry[16] = 1;
  return entry;
}

/** A `UsvDTd` answer: reviews at [0], the next page's token at [1][1]; an app without reviews answers an empty payload. */
export function reviewsAnswer(reviews: readonly PlayReview[], nextToken: string | undefined): string {
  const payload = reviews.length === 0 ? [] : [reviews.map(reviewEntry), nextToken ? [null, nextToken] : null];
  return batchFrames(JSON.stringify(payload), undefined, REVIEWS_RPC);
}

/** A search page: its `ds:4` sections, the exact match featured in one (`[23]`), the list in another (`[22]`). */
export function searchPageHtml(
  featured: { app: PlayApp; developer: PlayDeveloper } | undefined,
  listed: readonly { app: PlayApp; developer: PlayDeveloper }[],
  country: string,
  nextToken: string | undefined,
): string {
  const sections: unknown[] = [];
  if (featured) {
    const top: unknown[] = Array(24).fill(null);
    const details: unknown[] = Array(100).fill(null);
    put(details, [0, 0], featured.app.title);
    details[51] = [[featured.app.score.toFixed(1), featured.app.score]];
    details[68] = [
      featured.developer.name,
      [null, null, null, null, [null, null, `/store/apps/dev?id=${featured.developer.id}`]],
    ];
    put(details, [73, 0, 1], featured.app.summary);
    put(details, [95, 0, 3, 2], featured.app.icon);
    const { micros, currency } = price(featured.app, country);
    top[23] = Object.assign(Array(18).fill(null), {
      16: [null, null, details, { 12: [[featured.app.appId, 7]] }],
      17: [[null, null, [[null, [[micros, currency]]]]]],
    });
    sections.push(top);
  }
  const list: unknown[] = Array(23).fill(null);
  list[22] = [
    listed.map(({ app, developer }) => [pageEntry(app, developer, country)]),
    [null, null, null, [null, nextToken ?? null]],
  ];
  sections.push(list);
  const data = [[null, sections]];
  return [
    '<!doctype html><html lang="en"><head><base href="https://play.google.com/"><title>Google Play</title></head><body>',
    `<script class="ds:4" nonce="emulator">AF_initDataCallback({key: 'ds:4', hash: '5', data:${scriptJson(data)}, sideChannel: {}});</script>`,
    '</body></html>',
  ].join('');
}

/** A search's `qnKhOb` continuation: entries in a developer page's layout at [0][0][0], the token at [0][0][7][1]. */
export function searchContinuationAnswer(
  listed: readonly { app: PlayApp; developer: PlayDeveloper }[],
  country: string,
  nextToken: string | undefined,
): string {
  const cluster: unknown[] = [listed.map(({ app, developer }) => pageEntry(app, developer, country))];
  if (nextToken) cluster[7] = [null, nextToken];
  return batchFrames(JSON.stringify([[cluster]]));
}

/** JSON inside a script: `<` escaped, as Google escapes it, so no value can end the script. */
const scriptJson = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c');

export function developerPageHtml(
  developer: PlayDeveloper,
  apps: readonly PlayApp[],
  country: string,
  by: 'id' | 'name',
  nextToken: string | undefined,
): string {
  const entries = apps.map((app) =>
    by === 'id' ? pageEntry(app, developer, country) : [pageEntry(app, developer, country)],
  );
  const root: unknown[] = Array(by === 'id' ? 22 : 23).fill(null);
  root[3] = [null, null, [null, null, [null, null, developer.name]]];
  root[by === 'id' ? 21 : 22] = [entries, [null, null, null, [null, nextToken ?? null]]];
  const data = [[null, [root]]];
  return [
    '<!doctype html><html lang="en"><head><base href="https://play.google.com/">',
    `<title>Android Apps by ${developer.name.replace(/[<&]/g, '')} on Google Play</title></head><body>`,
    `<script class="ds:3" nonce="emulator">AF_initDataCallback({key: 'ds:3', hash: '8', data:${scriptJson(data)}, sideChannel: {}});</script>`,
    '</body></html>',
  ].join('');
}

/** A `qnKhOb` continuation answer. */
export function clusterAnswer(
  developer: PlayDeveloper,
  apps: readonly PlayApp[],
  country: string,
  nextToken: string | undefined,
): string {
  const cluster: unknown[] = [
    apps.map((app) => clusterEntry(app, developer, country)),
    `More by ${developer.name}`,
    [null, null, null, null, [null, null, `/store/apps/dev?id=${developer.id}`]],
    null,
  ];
  if (nextToken) cluster[7] = [null, nextToken];
  const payload = [[null, null, null, ['emulator'], null, null, cluster]];
  return batchFrames(JSON.stringify(payload));
}

/** What Google answers for a token it does not know (or past the end): an error frame, no payload. */
export function clusterErrorAnswer(rpc = CLUSTER_RPC): string {
  return batchFrames(
    null,
    [5, null, [['type.googleapis.com/wireless.android.finsky.boq.web.data.store.error.PlayDataError', [1]]]],
    rpc,
  );
}

function batchFrames(payload: string | null, error?: unknown, rpc = CLUSTER_RPC): string {
  const frame =
    error === undefined
      ? ['wrb.fr', rpc, payload, null, null, null, 'generic']
      : ['wrb.fr', rpc, null, null, null, error, 'generic'];
  return `)]}'\n\n${JSON.stringify([frame, ['di', 42], ['af.httprm', 41, '-1', 17]])}`;
}
