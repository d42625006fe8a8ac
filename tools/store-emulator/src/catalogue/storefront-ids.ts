import { STOREFRONTS, type Storefront } from './storefronts.js';

/**
 * Apple's numeric storefront ids, which the customer-reviews page and the search hints read from the
 * `X-Apple-Store-Front` header ("143441-1,29": storefront, language, platform) instead of the path.
 */
const IDS: Readonly<Record<string, number>> = {
  us: 143441,
  gb: 143444,
  de: 143443,
  fr: 143442,
  jp: 143462,
  br: 143503,
  ca: 143455,
  ru: 143469,
  it: 143450,
  es: 143454,
  nl: 143452,
  se: 143456,
  kr: 143466,
  au: 143460,
  mx: 143468,
  in: 143467,
  pl: 143478,
  tr: 143480,
  ch: 143459,
  at: 143445,
};

const BY_ID = new Map(STOREFRONTS.filter((s) => IDS[s.code] !== undefined).map((s) => [IDS[s.code], s]));

export function storefrontId(front: Storefront): number {
  return IDS[front.code];
}

export interface StoreFrontHeader {
  /** The storefront the id names; undefined for an id the emulator does not stock. */
  front?: Storefront;
  /** The platform after the comma (29 asks for JSON where a page has both forms); undefined when absent. */
  platform?: number;
}

/** Reads `X-Apple-Store-Front: 143441-1,29`; undefined when the header is missing or malformed. */
export function readStoreFrontHeader(value: string | string[] | undefined): StoreFrontHeader | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  const match = /^\s*(\d{6})(?:-\d+)?(?:\s*,\s*(\d+))?/.exec(text ?? '');
  if (!match) return undefined;
  return { front: BY_ID.get(Number(match[1])), platform: match[2] === undefined ? undefined : Number(match[2]) };
}
