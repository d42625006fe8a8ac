/**
 * The storefronts the emulator stocks. Apple has ~175; these few cover the currencies, scripts and
 * number formats the gateway must pass through. Any other well-formed country code is a storefront
 * that sells nothing (lookups answer `resultCount: 0`).
 */
export interface Storefront {
  code: string;
  /** Position in every availability bitmask. */
  bit: number;
  currency: string;
  locale: string;
  /** Language of generated reviews in this storefront. */
  reviewLanguage: 'en' | 'de' | 'fr' | 'ja' | 'pt' | 'ru';
  freeLabel: string;
  /** Apple price tiers 0..6 in the local currency. */
  tiers: readonly number[];
  /** Scales rating counts: bigger markets have more ratings. */
  marketWeight: number;
}

const TABLE: Omit<Storefront, 'bit'>[] = [
  {
    code: 'us',
    currency: 'USD',
    locale: 'en-US',
    reviewLanguage: 'en',
    freeLabel: 'Free',
    tiers: [0, 0.99, 1.99, 2.99, 4.99, 9.99, 19.99],
    marketWeight: 1,
  },
  {
    code: 'gb',
    currency: 'GBP',
    locale: 'en-GB',
    reviewLanguage: 'en',
    freeLabel: 'Free',
    tiers: [0, 0.99, 1.99, 2.99, 4.99, 9.99, 19.99],
    marketWeight: 0.25,
  },
  {
    code: 'de',
    currency: 'EUR',
    locale: 'de-DE',
    reviewLanguage: 'de',
    freeLabel: 'Gratis',
    tiers: [0, 0.99, 1.99, 2.99, 5.99, 10.99, 21.99],
    marketWeight: 0.2,
  },
  {
    code: 'fr',
    currency: 'EUR',
    locale: 'fr-FR',
    reviewLanguage: 'fr',
    freeLabel: 'Gratuit',
    tiers: [0, 0.99, 1.99, 2.99, 5.99, 10.99, 21.99],
    marketWeight: 0.15,
  },
  {
    code: 'jp',
    currency: 'JPY',
    locale: 'ja-JP',
    reviewLanguage: 'ja',
    freeLabel: '無料',
    tiers: [0, 160, 300, 500, 800, 1500, 3000],
    marketWeight: 0.3,
  },
  {
    code: 'br',
    currency: 'BRL',
    locale: 'pt-BR',
    reviewLanguage: 'pt',
    freeLabel: 'Grátis',
    tiers: [0, 5.9, 10.9, 16.9, 27.9, 54.9, 109.9],
    marketWeight: 0.12,
  },
  {
    code: 'ca',
    currency: 'CAD',
    locale: 'en-CA',
    reviewLanguage: 'en',
    freeLabel: 'Free',
    tiers: [0, 1.39, 2.79, 4.19, 6.99, 13.99, 27.99],
    marketWeight: 0.1,
  },
  {
    code: 'ru',
    currency: 'RUB',
    locale: 'ru-RU',
    reviewLanguage: 'ru',
    freeLabel: 'Бесплатно',
    tiers: [0, 99, 199, 299, 499, 999, 1990],
    marketWeight: 0.12,
  },
  {
    code: 'it',
    currency: 'EUR',
    locale: 'it-IT',
    reviewLanguage: 'en',
    freeLabel: 'Gratis',
    tiers: [0, 0.99, 1.99, 2.99, 5.99, 10.99, 21.99],
    marketWeight: 0.08,
  },
  {
    code: 'es',
    currency: 'EUR',
    locale: 'es-ES',
    reviewLanguage: 'en',
    freeLabel: 'Gratis',
    tiers: [0, 0.99, 1.99, 2.99, 5.99, 10.99, 21.99],
    marketWeight: 0.08,
  },
  {
    code: 'nl',
    currency: 'EUR',
    locale: 'nl-NL',
    reviewLanguage: 'en',
    freeLabel: 'Gratis',
    tiers: [0, 0.99, 1.99, 2.99, 5.99, 10.99, 21.99],
    marketWeight: 0.05,
  },
  {
    code: 'se',
    currency: 'SEK',
    locale: 'sv-SE',
    reviewLanguage: 'en',
    freeLabel: 'Gratis',
    tiers: [0, 12, 22, 35, 59, 119, 239],
    marketWeight: 0.04,
  },
  {
    code: 'kr',
    currency: 'KRW',
    locale: 'ko-KR',
    reviewLanguage: 'en',
    freeLabel: '무료',
    tiers: [0, 1500, 2900, 4400, 7500, 14000, 29000],
    marketWeight: 0.1,
  },
  {
    code: 'au',
    currency: 'AUD',
    locale: 'en-AU',
    reviewLanguage: 'en',
    freeLabel: 'Free',
    tiers: [0, 1.49, 2.99, 4.49, 7.99, 15.99, 29.99],
    marketWeight: 0.08,
  },
  {
    code: 'mx',
    currency: 'MXN',
    locale: 'es-MX',
    reviewLanguage: 'en',
    freeLabel: 'Gratis',
    tiers: [0, 17, 35, 49, 99, 199, 399],
    marketWeight: 0.06,
  },
  {
    code: 'in',
    currency: 'INR',
    locale: 'en-IN',
    reviewLanguage: 'en',
    freeLabel: 'Free',
    tiers: [0, 99, 199, 299, 499, 999, 1999],
    marketWeight: 0.1,
  },
  {
    code: 'pl',
    currency: 'PLN',
    locale: 'pl-PL',
    reviewLanguage: 'en',
    freeLabel: 'Bezpłatna',
    tiers: [0, 4.99, 9.99, 14.99, 24.99, 49.99, 99.99],
    marketWeight: 0.04,
  },
  {
    code: 'tr',
    currency: 'TRY',
    locale: 'tr-TR',
    reviewLanguage: 'en',
    freeLabel: 'Ücretsiz',
    tiers: [0, 39.99, 79.99, 119.99, 199.99, 399.99, 799.99],
    marketWeight: 0.04,
  },
  {
    code: 'ch',
    currency: 'CHF',
    locale: 'de-CH',
    reviewLanguage: 'de',
    freeLabel: 'Gratis',
    tiers: [0, 1, 2, 3, 6, 11, 22],
    marketWeight: 0.03,
  },
  {
    code: 'at',
    currency: 'EUR',
    locale: 'de-AT',
    reviewLanguage: 'de',
    freeLabel: 'Gratis',
    tiers: [0, 0.99, 1.99, 2.99, 5.99, 10.99, 21.99],
    marketWeight: 0.03,
  },
];

export const STOREFRONTS: readonly Storefront[] = TABLE.map((s, bit) => ({ ...s, bit }));

export const ALL_STOREFRONTS_MASK = (1 << STOREFRONTS.length) - 1;

const BY_CODE = new Map(STOREFRONTS.map((s) => [s.code, s]));

export function storefront(code: string): Storefront | undefined {
  return BY_CODE.get(code.toLowerCase());
}

export function storefrontMask(...codes: string[]): number {
  return codes.reduce((mask, code) => mask | (1 << BY_CODE.get(code)!.bit), 0);
}

export function soldIn(mask: number, front: Storefront): boolean {
  return (mask & (1 << front.bit)) !== 0;
}

export function storefrontsIn(mask: number): Storefront[] {
  return STOREFRONTS.filter((s) => soldIn(mask, s));
}

const formatters = new Map<string, Intl.NumberFormat>();

/** A price as the storefront shows it ("$0.99", "0,99 €", "￥160"), or the local word for free. */
export function formatPrice(front: Storefront, price: number): string {
  if (price === 0) return front.freeLabel;
  let format = formatters.get(front.code);
  if (!format) {
    format = new Intl.NumberFormat(front.locale, { style: 'currency', currency: front.currency });
    formatters.set(front.code, format);
  }
  return format.format(price);
}
