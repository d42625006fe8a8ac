import { itunesJson, type EmulatorResponse } from '../http.js';

/** Languages the emulator's iTunes Search accepts for `lang` (Apple rejects unknown ones). */
const LANGUAGES = new Set([
  'ar',
  'ca',
  'cs',
  'da',
  'de',
  'el',
  'en',
  'es',
  'fi',
  'fr',
  'he',
  'hi',
  'hr',
  'hu',
  'id',
  'it',
  'ja',
  'ko',
  'ms',
  'nb',
  'nl',
  'no',
  'pl',
  'pt',
  'ro',
  'ru',
  'sk',
  'sv',
  'th',
  'tr',
  'uk',
  'vi',
  'zh',
]);

const ERROR_PARAMETERS = {
  output: 'json',
  callback: 'A javascript function to handle your search results',
  country: 'ISO-2A country code',
  limit: 'The number of search results to return',
  term: 'A search string',
  lang: 'ISO-2A language code',
};

/** Apple's answer to a malformed parameter: HTTP 400 with an `errorMessage` JSON. */
export function invalidParameter(key: string): EmulatorResponse {
  return itunesJson(400, { errorMessage: `Invalid value(s) for key(s): [${key}]`, queryParameters: ERROR_PARAMETERS });
}

export function isValidLang(lang: string): boolean {
  const match = /^([a-z]{2})(?:[-_]([a-z]{2,4}))?$/i.exec(lang);
  return match !== null && LANGUAGES.has(match[1].toLowerCase());
}

export function isValidCountry(country: string): boolean {
  return /^[a-z]{2}$/i.test(country);
}

/** `limit` as Apple reads it: default when absent or unreadable, capped to 1..max. */
export function readLimit(value: string | null, fallback: number, max: number): number {
  const parsed = value === null ? Number.NaN : Number.parseInt(value, 10);
  if (!Number.isFinite(parsed)) return fallback;
  return Math.min(max, Math.max(1, parsed));
}

/** Common checks of country and lang; returns Apple's error answer when one is invalid. */
export function checkCountryAndLang(query: URLSearchParams): EmulatorResponse | undefined {
  const country = query.get('country');
  if (country !== null && !isValidCountry(country)) return invalidParameter('country');
  const lang = query.get('lang');
  if (lang !== null && lang !== '' && !isValidLang(lang)) return invalidParameter('language');
  return undefined;
}

/** The `key=value` segments of a feed path (`/page=2/id=1/sortby=mostRecent`), keys lower-cased. */
export function pathOptions(segments: string): Map<string, string> {
  const options = new Map<string, string>();
  for (const segment of segments.split('/').filter(Boolean)) {
    const [key, value = ''] = segment.split('=');
    options.set(key.toLowerCase(), decodeURIComponent(value));
  }
  return options;
}
