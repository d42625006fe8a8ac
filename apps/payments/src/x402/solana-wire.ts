import { getBase64Encoder, getTransactionDecoder, type Transaction } from '@solana/kit';

const base64 = getBase64Encoder();
const transactionDecoder = getTransactionDecoder();
/** The last transaction decoded: a payment's validity check and its lock identity read the same one, one after the other. */
let last: { text: string; transaction: Transaction } | null = null;

/**
 * A Solana payment's wire transaction (base64), decoded. Throws when it is not one. The codecs are
 * built once, and the last answer is kept: decoding was a third of a Solana payment's CPU in payments
 * (bench profile), done twice per payment.
 */
export function decodeWireTransaction(text: string): Transaction {
  if (last?.text === text) return last.transaction;
  const transaction = transactionDecoder.decode(base64.encode(text));
  last = { text, transaction };
  return transaction;
}
