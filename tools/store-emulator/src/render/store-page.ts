import { createHash } from 'node:crypto';
import { escapeXml } from './reviews-feed.js';

const ISSUED_AT = 1_759_276_800;

function base64url(value: string | Buffer): string {
  return Buffer.from(value).toString('base64url');
}

/** A JWT-shaped developer token, stable per seed and rotation. */
export function webCatalogueToken(seed: number, rotation: number): string {
  const header = base64url(JSON.stringify({ alg: 'ES256', typ: 'JWT', kid: 'EMULATOR01' }));
  const iat = ISSUED_AT + rotation;
  const payload = base64url(JSON.stringify({ iss: 'AppCatStoreEmulator', iat, exp: iat + 15_552_000, root_https_origin: ['apple.com'] }));
  const signature = base64url(createHash('sha256').update(`${seed}:${rotation}`).digest());
  return `${header}.${payload}.${signature}`;
}

/**
 * An apps.apple.com page. Like the real site, it carries the web catalogue's bearer token in the
 * `web-experience-app/config/environment` meta tag as URL-encoded JSON (MEDIA_API.token), on a line
 * of its own, which is where open-source scrapers look for it.
 */
export function storePageHtml(options: { title: string; lang: string; token: string; canonical: string }): string {
  const config = {
    modulePrefix: 'web-experience-app',
    environment: 'production',
    rootURL: '/',
    locationType: 'history-hash-router-scroll',
    MEDIA_API: { token: options.token },
    API: { AppHost: 'amp-api-edge.apps.apple.com' },
  };
  return `<!DOCTYPE html>
<html dir="ltr" lang="${escapeXml(options.lang)}">
<head>
<meta charset="utf-8">
<title>${escapeXml(options.title)}</title>
<link rel="canonical" href="${escapeXml(options.canonical)}">
<meta name="web-experience-app/config/environment" content="${encodeURIComponent(JSON.stringify(config))}">
</head>
<body><h1>${escapeXml(options.title)}</h1></body>
</html>
`;
}

export function notFoundHtml(): string {
  return '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>Not Found</title></head><body>The page you\'re looking for can\'t be found.</body></html>\n';
}
