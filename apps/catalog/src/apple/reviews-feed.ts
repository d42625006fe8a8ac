import { XMLParser, XMLValidator } from 'fast-xml-parser';
import type { Review } from '../store/store-adapter.js';
import { badResponse, isRecord } from '../upstream/upstream-failures.js';

// Values stay strings (a title "1234" must not become a number); entities are decoded.
const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@_', parseTagValue: false, trimValues: true });

/** The parser gives an object for one element and an array for several: Apple's single-review quirk. */
function asArray(value: unknown): unknown[] {
  if (value === undefined || value === null || value === '') return [];
  return Array.isArray(value) ? value : [value];
}

function textOf(value: unknown): string {
  if (typeof value === 'string') return value;
  if (isRecord(value) && typeof value['#text'] === 'string') return value['#text'];
  return '';
}

function numberOf(value: unknown): number {
  const number = Number(textOf(value));
  return Number.isFinite(number) ? number : 0;
}

function toReview(entry: Record<string, unknown>, appId: string): Review | undefined {
  const id = textOf(entry.id);
  if (!id) return undefined;
  const author = isRecord(entry.author) ? entry.author : {};
  const contents = asArray(entry.content).filter(isRecord);
  const plain = contents.find((c) => c['@_type'] === 'text') ?? contents.find((c) => c['@_type'] !== 'html');
  const links = asArray(entry.link).filter(isRecord);
  const link = links.find((l) => l['@_rel'] === 'related') ?? links[0];
  return {
    id,
    appId,
    userName: textOf(author.name),
    userUrl: textOf(author.uri),
    version: textOf(entry['im:version']),
    score: numberOf(entry['im:rating']),
    title: textOf(entry.title),
    text: textOf(plain),
    url: typeof link?.['@_href'] === 'string' ? link['@_href'] : '',
    updated: textOf(entry.updated),
    voteSum: numberOf(entry['im:voteSum']),
    voteCount: numberOf(entry['im:voteCount']),
  };
}

/** Reviews of one page of the customer reviews Atom feed. */
export function parseReviewsFeed(xml: string, appId: string, host: string): Review[] {
  if (XMLValidator.validate(xml) !== true) throw badResponse('a reviews feed that is not XML', host);
  const document: unknown = parser.parse(xml);
  const feed = isRecord(document) ? document.feed : undefined;
  if (!isRecord(feed) && feed !== '') throw badResponse('XML without a reviews feed', host);
  const entries = isRecord(feed) ? asArray(feed.entry) : [];
  return entries.filter(isRecord).flatMap((entry) => toReview(entry, appId) ?? []);
}
