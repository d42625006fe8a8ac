const CONFIG_META = /<meta\s+name="web-experience-app\/config\/environment"\s+content="([^"]*)"/i;
const TOKEN_IN_ENCODED_JSON = /token%22%3A%22([^%"]+)%22/;

/**
 * The web catalogue token from an apps.apple.com page: the URL-encoded JSON of the
 * `web-experience-app/config/environment` meta tag holds it at MEDIA_API.token. The raw pattern is a
 * fallback for a config that no longer parses as a whole.
 */
export function readBearerToken(html: string): string | undefined {
  const content = CONFIG_META.exec(html)?.[1];
  if (content) {
    try {
      const config = JSON.parse(decodeURIComponent(content)) as { MEDIA_API?: { token?: unknown } };
      const token = config.MEDIA_API?.token;
      if (typeof token === 'string' && token !== '') return token;
    } catch {
      // fall through to the pattern
    }
  }
  return TOKEN_IN_ENCODED_JSON.exec(html)?.[1];
}
