/**
 * Where apps.apple.com keeps the web catalogue token today: the page's `<head>` loads one module
 * script (`<script type="module" crossorigin src="/assets/index~….js">`) and the token is a string
 * literal in it, a JWT whose header starts `eyJhbGci` (`{"alg":…`). This is how maintained scrapers
 * (RSSHub's Apple routes) read it since the `web-experience-app/config/environment` meta tag went.
 * A regular expression over `<head>` rather than an HTML parser: one attribute of one tag is read, and
 * the page is not otherwise used.
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
