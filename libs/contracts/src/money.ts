/**
 * Money on the wire and in storage is an integer count of micro-USD (1 USD = 1 000 000 µUSD), which is
 * also the atomic unit of USDC (6 decimals). It travels between services as a decimal string of that
 * integer ("3000") and lives in code as `bigint`. Never a float: conversion to "0.003000" happens only
 * at the edge, with {@link formatUsd}.
 */
export type MicroUsdString = string;

export const MICROS_PER_USD = 1_000_000n;

/** The price of every priced call: USD 0.003. */
export const PRICE_PER_CALL_MICROS = 3_000n;

/** The smallest top-up: USD 1. */
export const MIN_TOPUP_MICROS = 1_000_000n;

/** The largest single top-up: USD 10 000 (keeps balances far from any integer limit). */
export const MAX_TOPUP_MICROS = 10_000_000_000n;

const USD_DECIMAL = /^(0|[1-9]\d{0,11})(?:\.(\d{1,6}))?$/;
const MICROS_INTEGER = /^(0|[1-9]\d{0,18})$/;

/** "1.5" → 1500000n; null for anything that is not a plain non-negative decimal with ≤ 6 decimals. */
export function parseUsd(text: string): bigint | null {
  const match = USD_DECIMAL.exec(text);
  if (!match) return null;
  const whole = BigInt(match[1]);
  const fraction = BigInt((match[2] ?? '').padEnd(6, '0'));
  return whole * MICROS_PER_USD + fraction;
}

/** 3000n → "0.003000"; negative amounts keep their sign. */
export function formatUsd(micros: bigint): string {
  const sign = micros < 0n ? '-' : '';
  const abs = micros < 0n ? -micros : micros;
  const whole = abs / MICROS_PER_USD;
  const fraction = (abs % MICROS_PER_USD).toString().padStart(6, '0');
  return `${sign}${whole}.${fraction}`;
}

/** Parses a wire amount ("3000"); throws on anything but a non-negative integer string. */
export function parseMicros(text: MicroUsdString): bigint {
  if (typeof text !== 'string' || !MICROS_INTEGER.test(text)) {
    throw new RangeError(`not a micro-USD integer string: ${JSON.stringify(text)}`);
  }
  return BigInt(text);
}

export function toMicrosString(micros: bigint): MicroUsdString {
  return micros.toString();
}
