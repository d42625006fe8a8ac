import type { CatalogSource, X402Receipt } from '@appcat/contracts';

/** How a call was paid for: a debit (with the balance it left) or a settled x402 payment. */
export type Charge = { method: 'credits'; balance: bigint } | { method: 'x402'; receipt: X402Receipt };

/** A delivered priced call. */
export interface PricedAnswer {
  charge: Charge;
  /** The catalog's data as JSON text, the envelope's `data` (decoded only by transports that need it, such as MCP). */
  dataJson: string;
  source: CatalogSource;
  ageSeconds?: number;
  /** The store's sources that produced the data, as the catalog names them. */
  upstreamSource?: string;
}

/**
 * What a priced call came to, for a transport (HTTP, MCP) to render: its answer with its charge, or
 * the failure that ended it (answered as `ErrorAnswers.uncharged` maps it). A failed call is never
 * charged, so a failure carries no charge.
 */
export type PricedResult = { ok: true; answer: PricedAnswer } | { ok: false; error: unknown };
