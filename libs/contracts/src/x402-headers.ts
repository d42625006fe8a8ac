/**
 * x402's HTTP headers (`payment-required`, `payment-signature`, `payment-response`) carry base64 of
 * JSON. @x402/core's own helpers read them through `atob` and a byte loop and write them through a
 * per-byte `Array.from` and `btoa`, which on Node 20 (a JavaScript `atob`) cost a paid call about
 * 0.1 ms of CPU for each decode of a 3 KB payment (bench profile, x402 section). These use Buffer and
 * accept exactly what the library accepts: its alphabet check, the forgiving-base64 rules `atob` adds
 * to it (padding only at a length that is a multiple of 4; never a length of 4n + 1), and
 * TextDecoder's dropping of a leading byte-order mark. A spec holds them to the library.
 */

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Whether `atob` would decode `text` that passed the alphabet check. */
function forgivingLength(text: string): boolean {
  const remainder = text.length % 4;
  if (remainder === 0) return true;
  return remainder !== 1 && text.charCodeAt(text.length - 1) !== 0x3d; // '='
}

/** The JSON value in an x402 header; throws when the header is not base64 or its text not JSON. */
export function decodeX402Header(header: string): unknown {
  if (!BASE64.test(header) || !forgivingLength(header)) throw new Error('x402 header is not base64');
  const bytes = Buffer.from(header, 'base64');
  const bom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  return JSON.parse(bytes.toString('utf8', bom));
}

/** An x402 header holding `value` as base64 of its JSON (UTF-8). */
export function encodeX402Header(value: unknown): string {
  return Buffer.from(JSON.stringify(value), 'utf8').toString('base64');
}
