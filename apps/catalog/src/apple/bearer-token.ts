/**
 * Where apps.apple.com has kept the web catalogue token: a string literal in the module script the
 * page's `<head>` loads (`<script type="module" crossorigin src="/assets/index~….js">`, RSSHub's Apple
 * routes until 2026-04), the `web-experience-app/config/environment` meta tag (`MEDIA_API.token`,
 * before), or the page's serialized server data (where Apple's other sites carry theirs). Since 2026 it
 * is often injected at run time and found in none of them. A JWT's header starts `eyJhbGci`
 * (`{"alg":…`). Regular expressions rather than an HTML parser: one attribute of one tag is read.
 */

const HEAD = /<head\b[^>]*>([\s\S]*?)<\/head>/i;
const SCRIPT_TAG = /<script\b[^>]*>/gi;
const ATTRIBUTE = /([a-z][a-z0-9-]*)\s*(?:=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+)))?/gi;
/** A JWT as a quoted literal: base64url header (starting `{"alg"`), payload and signature. */
const JWT_LITERAL = /["'`](eyJhbGci[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)["'`]/;

function attributesOf(tag: string): Map<string, string> {
  const attributes = new Map<string, string>();
  for (const match of tag.replace(/^<script\b|>$/gi, '').matchAll(ATTRIBUTE)) {
    attributes.set(match[1].toLowerCase(), match[2] ?? match[3] ?? match[4] ?? '');
  }
  return attributes;
}

/** The `src` of the first module script in the page's `<head>`, as written (often a root-relative path). */
export function moduleScriptSrc(html: string): string | undefined {
  const head = HEAD.exec(html)?.[1];
  if (head === undefined) return undefined;
  for (const [tag] of head.matchAll(SCRIPT_TAG)) {
    const attributes = attributesOf(tag);
    const src = attributes.get('src');
    if (attributes.get('type')?.toLowerCase() === 'module' && src) return src;
  }
  return undefined;
}

const META_CONFIG = /<meta\s+name="web-experience-app\/config\/environment"\s+content="([^"]*)"/i;
const SERIALIZED_DATA = /<script\b[^>]*\bid=["']?serialized-server-data["']?[^>]*>([\s\S]*?)<\/script>/i;
const JWT = /^eyJhbGci[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/** The token of the old meta tag's configuration (URL-encoded JSON, `MEDIA_API.token`). */
export function metaConfigToken(html: string): string | undefined {
  const content = META_CONFIG.exec(html)?.[1];
  if (content === undefined) return undefined;
  try {
    const token = (JSON.parse(decodeURIComponent(content)) as { MEDIA_API?: { token?: unknown } }).MEDIA_API?.token;
    return typeof token === 'string' && JWT.test(token) ? token : undefined;
  } catch {
    return undefined;
  }
}

/** The page's serialized server data, parsed; undefined when the page has none or it is not JSON. */
export function serializedServerData(html: string): unknown {
  const text = SERIALIZED_DATA.exec(html)?.[1];
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The first JWT-shaped string anywhere in a parsed JSON value. */
export function findJwt(value: unknown): string | undefined {
  const stack = [value];
  for (let seen = 0; stack.length > 0 && seen < 100_000; seen++) {
    const item = stack.pop();
    if (typeof item === 'string') {
      if (JWT.test(item)) return item;
    } else if (item !== null && typeof item === 'object') {
      stack.push(...Object.values(item));
    }
  }
  return undefined;
}

/** The first JWT-shaped string literal in a script. */
export function findBearerToken(script: string): string | undefined {
  return JWT_LITERAL.exec(script)?.[1];
}

/** When a JWT expires (its `exp`, in ms since the epoch); undefined when it has none or cannot be read. */
export function tokenExpiry(token: string): number | undefined {
  const payload = token.split('.')[1];
  if (!payload) return undefined;
  try {
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { exp?: unknown };
    return typeof claims.exp === 'number' && Number.isFinite(claims.exp) ? claims.exp * 1000 : undefined;
  } catch {
    return undefined;
  }
}
