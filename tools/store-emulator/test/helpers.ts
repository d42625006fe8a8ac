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

/** The bearer token a page carries, read the way scrapers do. */
export function tokenFromPage(html: string): string {
  const content = /<meta name="web-experience-app\/config\/environment" content="([^"]+)"/.exec(html)?.[1];
  if (!content) throw new Error('no config meta tag');
  return (JSON.parse(decodeURIComponent(content)) as { MEDIA_API: { token: string } }).MEDIA_API.token;
}
