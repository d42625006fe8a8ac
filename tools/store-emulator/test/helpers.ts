import { XMLParser } from 'fast-xml-parser';

export const ITUNES_USER_AGENT = 'iTunes/12.13 (Macintosh; OS X 14.5) AppleWebKit/618.2.12';

export interface Fetched {
  status: number;
  headers: Headers;
  text: string;
  json<T = Record<string, unknown>>(): T;
}

export async function get(base: string, path: string, headers: Record<string, string> = {}): Promise<Fetched> {
  const response = await fetch(`${base}${path}`, { headers });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, json: <T>() => JSON.parse(text) as T };
}

export interface FeedEntry {
  id: string;
  title: string;
  updated: string;
  'im:rating': string;
  'im:voteSum': string;
  content: { '#text': string; '@_type': string }[];
}

const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@_', parseTagValue: false });

/** Entries of a reviews feed, always as an array (the raw parse gives an object for one entry). */
export function feedEntries(xml: string): { raw: unknown; entries: FeedEntry[] } {
  const feed = (parser.parse(xml) as { feed: { entry?: FeedEntry | FeedEntry[] } }).feed;
  const raw = feed.entry;
  return { raw, entries: raw === undefined ? [] : Array.isArray(raw) ? raw : [raw] };
}

/** The module script a store page's head loads, as scrapers find it. */
export function moduleScriptOf(html: string): string {
  const head = /<head>([\s\S]*?)<\/head>/.exec(html)?.[1] ?? '';
  const src = /<script type="module" crossorigin src="([^"]+)"><\/script>/.exec(head)?.[1];
  if (!src) throw new Error('no module script in the page head');
  return src;
}

/** The bearer token a page leads to, read the way maintained scrapers do: the page, then its module script. */
export async function tokenFromPage(base: string, html: string): Promise<string> {
  const script = await get(base, moduleScriptOf(html));
  const token = /="(eyJhbGci[^"]*)"/.exec(script.text)?.[1];
  if (!token) throw new Error('no token in the module script');
  return token;
}
