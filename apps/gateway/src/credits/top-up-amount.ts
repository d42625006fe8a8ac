import { formatUsd, MAX_TOPUP_MICROS, MIN_TOPUP_MICROS, parseUsd } from '@appcat/contracts';
import { HttpError } from '../errors/http-error.js';

const RULE = `amount must be a USD amount from ${formatUsd(MIN_TOPUP_MICROS).replace(/\.?0+$/, '')} to ${formatUsd(MAX_TOPUP_MICROS).replace(/\.?0+$/, '')} with at most 6 decimals`;

/** The `amount` of a top-up, in µUSD: "5" → 5000000n. A 400 naming `amount` otherwise. */
export function readTopUpAmount(value: string | string[] | undefined): bigint {
  if (value === undefined || value === '') throw new HttpError(400, 'amount is required');
  if (Array.isArray(value)) throw new HttpError(400, 'amount must be given only once');
  const micros = parseUsd(value);
  if (micros === null || micros < MIN_TOPUP_MICROS || micros > MAX_TOPUP_MICROS) throw new HttpError(400, RULE);
  return micros;
}
