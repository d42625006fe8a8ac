import { XMLParser } from 'fast-xml-parser';
import { badResponse } from '../../upstream/upstream-failures.js';

/** A search suggestion: the term, and how often it is searched (0 rare … 10000 most) when the store says. */
export interface Suggestion {
  term: string;
  priority?: number;
}

/**
 * `https://search.itunes.apple.com/WebObjects/MZSearchHints.woa/wa/hints?clientApplication=Software&term=`
 * with the storefront header (app-store-scraper `suggest`; without the header the list is empty).
 */
export function searchHintsUrl(hintsBaseUrl: string, term: string): URL {
  const url = new URL(`${hintsBaseUrl}/WebObjects/MZSearchHints.woa/wa/hints`);
  url.searchParams.set('clientApplication', 'Software');
  url.searchParams.set('term', term);
  return url;
}

/** Document order kept (a dict is keys and values side by side); values stay text; entities decoded once. */
const PLIST_PARSING = { preserveOrder: true, parseTagValue: false, processEntities: true, htmlEntities: true } as const;

type Node = Record<string, unknown[]>;

/** A plist `<dict>` as pairs: each `<key>` followed by its value element, in document order. */
function dictEntries(dict: unknown): Map<string, { tag: string; value: unknown }> {
  const entries = new Map<string, { tag: string; value: unknown }>();
  if (!Array.isArray(dict)) return entries;
  let key: string | undefined;
  for (const item of dict as Node[]) {
    const [tag] = Object.keys(item).filter((k) => k !== ':@');
    const value = item[tag];
    if (tag === 'key') key = textOf(value);
    else if (key !== undefined) {
      entries.set(key, { tag, value });
      key = undefined;
    }
  }
  return entries;
}

function textOf(value: unknown): string | undefined {
  const first = Array.isArray(value) ? (value[0] as Record<string, unknown> | undefined) : undefined;
  if (first === undefined) return Array.isArray(value) ? '' : undefined;
  return typeof first['#text'] === 'string' ? first['#text'] : undefined;
}

/**
 * The hints plist: `<dict>` with `hints`, an `<array>` of `<dict>`s holding `term` (and `priority`,
 * `url`), in the store's order. Some captures hold bare `<string>`s instead of dicts; both are read.
 * A body that is not a plist with `hints` is unreadable, never "no suggestions".
 */
export function parseSearchHints(body: string, host: string): Suggestion[] {
  let document: Node[];
  try {
    document = new XMLParser(PLIST_PARSING).parse(body) as Node[];
  } catch {
    throw badResponse('search hints that are not XML', host);
  }
  const plist = document.find((node) => 'plist' in node)?.plist as Node[] | undefined;
  const root = plist?.find((node) => 'dict' in node)?.dict;
  const hints = dictEntries(root).get('hints');
  if (!hints || hints.tag !== 'array') throw badResponse('search hints without a hints list', host);
  const suggestions: Suggestion[] = [];
  for (const item of (hints.value ?? []) as Node[]) {
    if ('string' in item) {
      const term = textOf(item.string);
      if (term) suggestions.push({ term });
      continue;
    }
    if (!('dict' in item)) continue;
    const fields = dictEntries(item.dict);
    const term = textOf(fields.get('term')?.value);
    if (!term) continue;
    const priority = Number(textOf(fields.get('priority')?.value));
    suggestions.push(Number.isInteger(priority) ? { term, priority } : { term });
  }
  return suggestions;
}

/**
 * The store suggests something for any single letter; nothing for one is a failure of the source
 * (the list is empty when the storefront header is lost, as scrapers report).
 */
export function suggestionsImplausible(term: string, suggestions: Suggestion[]): string | undefined {
  return suggestions.length === 0 && /^\p{L}$/u.test(term.trim())
    ? `no hints for the letter ${JSON.stringify(term.trim())}`
    : undefined;
}
