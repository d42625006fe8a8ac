import { type Hex, bytesToHex, stringToBytes } from 'viem';

/**
 * The 32-byte word Solidity keeps a short `string` state variable in: the UTF-8 bytes left-aligned
 * and twice the length in the lowest byte. Longer strings live elsewhere; token names never need them.
 */
export function shortStringSlotValue(text: string): Hex {
  const bytes = stringToBytes(text);
  if (bytes.length > 31) throw new Error(`"${text}" is too long for a short-string storage slot (max 31 bytes)`);
  const word = new Uint8Array(32);
  word.set(bytes, 0);
  word[31] = bytes.length * 2;
  return bytesToHex(word);
}
