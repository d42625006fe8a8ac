import type { ListData } from '../store/store-adapter.js';

/**
 * The JSON text each value read from the cache was decoded from, so a reply can carry that text as it
 * is instead of serialising the value again (the catalog's largest per-call cost on a warm cache).
 * Entries are written with JSON.stringify, so the text is exactly what serialising the decoded value
 * would give. Values read from the cache are never changed in place (replies that reorder or cut a
 * list build a new array), so the text stays true for as long as the value lives.
 */
const sources = new WeakMap<object, string>();

/** Remembers that `value` was decoded from `text`. */
export function rememberJsonSource(value: unknown, text: string): void {
  if (value !== null && typeof value === 'object') sources.set(value, text);
}

/** JSON.stringify(value), using the remembered text of the value or of an array's items where there is one. */
export function toJson(value: unknown): string {
  if (value !== null && typeof value === 'object') {
    const known = sources.get(value);
    if (known !== undefined) return known;
    if (Array.isArray(value)) return `[${value.map(itemJson).join(',')}]`;
  }
  return JSON.stringify(value);
}

/** Array items that JSON has no value for are written as null, as JSON.stringify does. */
function itemJson(item: unknown): string {
  return item === undefined || typeof item === 'function' || typeof item === 'symbol' ? 'null' : toJson(item);
}

/** A reply's data as JSON text: the same text JSON.stringify(list) gives. */
export function listJson(list: ListData): string {
  return `{"resultCount":${JSON.stringify(list.resultCount)},"results":${toJson(list.results)}}`;
}
