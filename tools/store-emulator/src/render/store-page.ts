import { createHash } from 'node:crypto';
import type { DriftSettings } from '../control/drift.js';
import { serializedDataScript } from './page-data.js';
import { escapeXml } from './reviews-feed.js';

/** About half a year, as Apple's web tokens run. */
export const DEFAULT_TOKEN_LIFETIME_S = 15_552_000;
const THIRTY_DAYS_S = 2_592_000;

/**
 * When the emulator's tokens are issued, in seconds: the start of the current 30-day period, so that
 * two emulators with one seed carry the same token and it is valid for months; a test that wants a
 * token about to expire gets one issued now.
 */
export function tokenIssuedAt(nowMs: number, lifetimeS: number): number {
  const now = Math.floor(nowMs / 1000);
  return lifetimeS < DEFAULT_TOKEN_LIFETIME_S ? now : now - (now % THIRTY_DAYS_S);
}

function base64url(value: string | Buffer): string {
  return Buffer.from(value).toString('base64url');
}

/** A JWT-shaped developer token, stable per seed, issue time and rotation; its header starts `eyJhbGci` as Apple's does. */
export function webCatalogueToken(
  seed: number,
  rotation: number,
  issuedAtS: number,
  lifetimeS = DEFAULT_TOKEN_LIFETIME_S,
): string {
  const header = base64url(JSON.stringify({ alg: 'ES256', typ: 'JWT', kid: 'EMULATOR01' }));
  const iat = issuedAtS + rotation;
  const payload = base64url(
    JSON.stringify({ iss: 'AppCatStoreEmulator', iat, exp: iat + lifetimeS, root_https_origin: ['apple.com'] }),
  );
  const signature = base64url(createHash('sha256').update(`${seed}:${rotation}`).digest());
  return `${header}.${payload}.${signature}`;
}

/** The path of the site's module script: a new build (a new token) gets a new content hash. */
export function moduleScriptPath(token: string): string {
  return `/assets/index~${createHash('sha256').update(token).digest('hex').slice(0, 10)}.js`;
}

/**
 * An apps.apple.com page. Today's site carries no configuration in the page: its `<head>` loads one
 * module script (`<script type="module" crossorigin src="/assets/index~….js">`), and the web
 * catalogue token is a string literal inside that script. The old site put it in the
 * `web-experience-app/config/environment` meta tag as URL-encoded JSON (`MEDIA_API.token`); the
 * drift settings can bring that back, put it in the serialized server data, or leave it out (2026).
 */
export function storePageHtml(options: {
  title: string;
  lang: string;
  token: string;
  canonical: string;
  drift: DriftSettings;
  /** The page's serialized server data (left out with the drift `pageData: "none"`). */
  serverData?: Record<string, unknown>;
}): string {
  const script = moduleScriptPath(options.token);
  const legacyConfig = {
    modulePrefix: 'web-experience-app',
    environment: 'production',
    MEDIA_API: { token: options.token },
    API: { AppHost: 'amp-api-edge.apps.apple.com' },
  };
  const meta =
    options.drift.token === 'meta-tag'
      ? `\n<meta name="web-experience-app/config/environment" content="${encodeURIComponent(JSON.stringify(legacyConfig))}">`
      : '';
  const withToken =
    options.drift.token === 'serialized-data'
      ? { ...options.serverData, environment: { MEDIA_API: { token: options.token } } }
      : options.serverData;
  const serverData = options.drift.pageData === 'serialized' && withToken ? `\n${serializedDataScript(withToken)}` : '';
  return `<!DOCTYPE html>
<html dir="ltr" lang="${escapeXml(options.lang)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeXml(options.title)}</title>
<link rel="canonical" href="${escapeXml(options.canonical)}">${meta}
<script type="module" crossorigin src="${script}"></script>
<link rel="stylesheet" crossorigin href="/assets/index~3f9c1a7d2e.css">
</head>
<body><div id="app"><h1>${escapeXml(options.title)}</h1></div>${serverData}</body>
</html>
`;
}

/**
 * The module script: minified application code with the token as one string literal among others,
 * unless the drift settings moved it out.
 */
export function moduleScriptJs(token: string, drift: DriftSettings): string {
  const tokenLiteral = drift.token === 'module-script' ? `"${token}"` : '""';
  return [
    'const Xe="https://amp-api-edge.apps.apple.com",Ye="web",Ze=["appletv","ipad","iphone","mac","realityDevice","watch"];',
    `const Qe=${tokenLiteral},Je={developerToken:Qe,storefront:"us",locale:"en-US"};`,
    'function ke(t){return fetch(Xe+t,{headers:{Authorization:"Bearer "+Je.developerToken}}).then(r=>r.json())}',
    'export{ke as f,Je as c,Ze as p};',
    '',
  ].join('\n');
}

export function notFoundHtml(): string {
  return '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>Not Found</title></head><body>The page you\'re looking for can\'t be found.</body></html>\n';
}
