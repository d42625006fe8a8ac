// What the top-up page needs of x402 v2 and the exact EVM scheme, with no DOM and no wallet: the
// amount rule, the 402 challenge, the EIP-3009 typed data and the payment-signature header. It is
// an ES module the browser loads as is and the gateway's unit tests import.

/** Top-up limits in µUSD (1 USD = 1 000 000), the same as the gateway's (MIN/MAX_TOPUP_MICROS). */
export const MIN_TOPUP_MICROS = 1_000_000n;
export const MAX_TOPUP_MICROS = 10_000_000_000n;

// The gateway's USD rule (libs/contracts parseUsd): digits, no sign or exponent, at most 6 decimals.
const USD_DECIMAL = /^(0|[1-9]\d{0,11})(?:\.(\d{1,6}))?$/;

/**
 * The top-up amount typed by a person: `{ micros }` (bigint) when the gateway would accept it as
 * `amount`, else `{ error }` saying what to change. Surrounding spaces are forgiven; nothing else is.
 */
export function parseTopUpAmount(text) {
  const trimmed = String(text).trim();
  if (trimmed === '') return { error: 'Enter an amount in USD, for example 5.' };
  const match = USD_DECIMAL.exec(trimmed);
  if (!match) {
    return /\.\d{7,}$/.test(trimmed)
      ? { error: 'Use at most 6 decimals.' }
      : { error: 'Enter the amount as a plain number such as 5 or 12.50, without a currency sign or commas.' };
  }
  const micros = BigInt(match[1]) * 1_000_000n + BigInt((match[2] ?? '').padEnd(6, '0'));
  if (micros < MIN_TOPUP_MICROS) return { error: 'The smallest top-up is USD 1.' };
  if (micros > MAX_TOPUP_MICROS) return { error: 'The largest top-up is USD 10,000.' };
  return { micros, text: trimmed };
}

/** 1500000n → "1.500000": six decimals, as the gateway reports balances. */
export function formatMicros(micros) {
  const value = BigInt(micros);
  return `${value / 1_000_000n}.${(value % 1_000_000n).toString().padStart(6, '0')}`;
}

/** Decodes a `payment-required` header: base64 of UTF-8 JSON, an x402 v2 PaymentRequired. */
export function decodePaymentRequired(header) {
  if (typeof header !== 'string' || header === '') throw new Error('the service sent no payment-required header');
  const json = new TextDecoder().decode(Uint8Array.from(atob(header), (c) => c.charCodeAt(0)));
  const required = JSON.parse(json);
  if (required?.x402Version !== 2 || !Array.isArray(required.accepts)) throw new Error('the service sent a payment challenge this page does not understand');
  return required;
}

/** The `payment-signature` header for a PaymentPayload: base64 of its UTF-8 JSON. */
export function encodePaymentSignature(payload) {
  const bytes = new TextEncoder().encode(JSON.stringify(payload));
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** The offers a browser wallet can pay: exact-scheme EVM (`eip155:<chain id>`) with an EIP-712 domain. */
export function evmAccepts(required) {
  return required.accepts.filter(
    (a) => a?.scheme === 'exact' && /^eip155:\d+$/.test(a.network) && a.extra?.name && a.extra?.version && (a.extra.assetTransferMethod ?? 'eip3009') === 'eip3009',
  );
}

/** "eip155:8453" → 8453. */
export function chainIdOf(network) {
  const match = /^eip155:(\d+)$/.exec(network);
  if (!match) throw new Error(`not an EVM network: ${network}`);
  return Number(match[1]);
}

const CHAIN_NAMES = new Map([
  [1, 'Ethereum'],
  [8453, 'Base'],
  [84532, 'Base Sepolia'],
  [143, 'Monad'],
  [10143, 'Monad Testnet'],
  [137, 'Polygon'],
  [80002, 'Polygon Amoy'],
  [42161, 'Arbitrum One'],
  [421614, 'Arbitrum Sepolia'],
  [10, 'Optimism'],
]);

/** A person's name for a chain: "Base", or "chain 31337" for one we do not know. */
export function chainName(chainId) {
  return CHAIN_NAMES.get(chainId) ?? `chain ${chainId}`;
}

/** A 32-byte random nonce as 0x-hex, as @x402/evm's createNonce makes it. */
export function randomNonce(random = globalThis.crypto) {
  const bytes = random.getRandomValues(new Uint8Array(32));
  return `0x${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}

/**
 * The EIP-3009 authorization the exact EVM scheme signs, exactly as @x402/evm builds it
 * (createEIP3009Payload): valid from 0 until now + maxTimeoutSeconds, for the full amount, to payTo.
 */
export function transferAuthorization(requirement, from, nowSeconds, nonce) {
  return {
    from,
    to: requirement.payTo,
    value: String(requirement.amount),
    validAfter: '0',
    validBefore: String(nowSeconds + requirement.maxTimeoutSeconds),
    nonce,
  };
}

/** The eth_signTypedData_v4 document for an authorization: USDC's EIP-712 domain on the offer's chain. */
export function transferAuthorizationTypedData(requirement, authorization) {
  return {
    types: {
      EIP712Domain: [
        { name: 'name', type: 'string' },
        { name: 'version', type: 'string' },
        { name: 'chainId', type: 'uint256' },
        { name: 'verifyingContract', type: 'address' },
      ],
      TransferWithAuthorization: [
        { name: 'from', type: 'address' },
        { name: 'to', type: 'address' },
        { name: 'value', type: 'uint256' },
        { name: 'validAfter', type: 'uint256' },
        { name: 'validBefore', type: 'uint256' },
        { name: 'nonce', type: 'bytes32' },
      ],
    },
    primaryType: 'TransferWithAuthorization',
    domain: {
      name: requirement.extra.name,
      version: requirement.extra.version,
      chainId: chainIdOf(requirement.network),
      verifyingContract: requirement.asset,
    },
    message: authorization,
  };
}

/** The x402 v2 PaymentPayload the gateway expects back: the challenge's resource, the chosen offer, the signature. */
export function paymentPayload(required, requirement, authorization, signature) {
  return {
    x402Version: 2,
    resource: required.resource,
    accepted: requirement,
    payload: { authorization, signature },
    ...(required.extensions ? { extensions: required.extensions } : {}),
  };
}

// ---- Solana: the exact SVM scheme, as @x402/svm's client builds it ------------------------------

// base58 is written here, not taken from @solana/kit: the page loads no library and has no bundler
// (kit's browser build is 220 kB for these lines); topup-page-solana.spec.ts holds it to kit's codec.
const BASE58_ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

/** Bytes → base58 (Solana addresses, signatures, blockhashes). */
export function base58Encode(bytes) {
  let value = 0n;
  for (const byte of bytes) value = value * 256n + BigInt(byte);
  let text = '';
  while (value > 0n) {
    text = BASE58_ALPHABET[Number(value % 58n)] + text;
    value /= 58n;
  }
  for (const byte of bytes) {
    if (byte !== 0) break;
    text = '1' + text;
  }
  return text;
}

/** base58 → bytes; throws on a character outside the alphabet. */
export function base58Decode(text) {
  let value = 0n;
  for (const char of text) {
    const digit = BASE58_ALPHABET.indexOf(char);
    if (digit < 0) throw new Error(`not base58: ${text}`);
    value = value * 58n + BigInt(digit);
  }
  const bytes = [];
  while (value > 0n) {
    bytes.unshift(Number(value % 256n));
    value /= 256n;
  }
  for (const char of text) {
    if (char !== '1') break;
    bytes.unshift(0);
  }
  return Uint8Array.from(bytes);
}

const SOLANA_CHAINS = new Map([
  ['solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp', { name: 'Solana', walletChain: 'solana:mainnet' }],
  ['solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1', { name: 'Solana Devnet', walletChain: 'solana:devnet' }],
  ['solana:4uhcVJyU9pJkvQyS88uRDiswHXSCkY3z', { name: 'Solana Testnet', walletChain: 'solana:testnet' }],
]);

/** The offers a Solana wallet can pay: exact scheme on a known Solana cluster, with the facilitator's fee payer. */
export function solanaAccepts(required) {
  return required.accepts.filter((a) => a?.scheme === 'exact' && SOLANA_CHAINS.has(a.network) && typeof a.extra?.feePayer === 'string');
}

/** A person's name for any offered network: "Base", "Solana". */
export function networkName(network) {
  return SOLANA_CHAINS.get(network)?.name ?? chainName(chainIdOf(network));
}

/** The Wallet Standard chain for a Solana network ("solana:mainnet"). */
export function walletChainOf(network) {
  const chain = SOLANA_CHAINS.get(network);
  if (!chain) throw new Error(`not a Solana network: ${network}`);
  return chain.walletChain;
}

export const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
const TOKEN_2022_PROGRAM = 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb';
const ASSOCIATED_TOKEN_PROGRAM = 'ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL';
const COMPUTE_BUDGET_PROGRAM = 'ComputeBudget111111111111111111111111111111';
const MEMO_PROGRAM = 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr';
/** @x402/svm's client defaults (DEFAULT_COMPUTE_UNIT_LIMIT, DEFAULT_COMPUTE_UNIT_PRICE_MICROLAMPORTS). */
const COMPUTE_UNIT_LIMIT = 20_000;
const COMPUTE_UNIT_PRICE_MICROLAMPORTS = 1n;
/** Stablecoins the page knows the decimals and token program of (@x402/svm's DEFAULT_ASSETS, USDC). */
const SOLANA_TOKENS = new Map([
  ['EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v', { decimals: 6, tokenProgram: TOKEN_PROGRAM }],
  ['4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU', { decimals: 6, tokenProgram: TOKEN_PROGRAM }],
]);

// ed25519: a program-derived address must not be a point on the curve.
const P = 2n ** 255n - 19n;
const D = (-121665n * modPow(121666n, P - 2n)) % P;
function mod(a) {
  const r = a % P;
  return r >= 0n ? r : r + P;
}
function modPow(base, exponent) {
  let result = 1n;
  let b = mod(base);
  let e = exponent;
  while (e > 0n) {
    if (e & 1n) result = (result * b) % P;
    b = (b * b) % P;
    e >>= 1n;
  }
  return result;
}
/** Whether 32 bytes decompress to an ed25519 point (x² = (y²−1)/(d·y²+1) has a root mod p). */
export function isOnCurve(bytes) {
  let y = 0n;
  for (let i = 31; i >= 0; i--) y = (y << 8n) | BigInt(i === 31 ? bytes[i] & 0x7f : bytes[i]);
  if (y >= P) return false;
  const y2 = (y * y) % P;
  const u = mod(y2 - 1n);
  const v = mod(D * y2 + 1n);
  const x2 = (u * modPow(v, P - 2n)) % P;
  return x2 === 0n || modPow(x2, (P - 1n) / 2n) === 1n;
}

/** The program address for `seeds` (findProgramAddress): the highest bump whose hash is off the curve. */
export async function findProgramAddress(seeds, programId, subtle = globalThis.crypto.subtle) {
  const marker = new TextEncoder().encode('ProgramDerivedAddress');
  for (let bump = 255; bump >= 0; bump--) {
    const input = concatBytes([...seeds, Uint8Array.of(bump), base58Decode(programId), marker]);
    const hash = new Uint8Array(await subtle.digest('SHA-256', input));
    if (!isOnCurve(hash)) return base58Encode(hash);
  }
  throw new Error('no program address found');
}

/** The associated token account of (owner, mint): where USDC for `owner` lives. */
export function associatedTokenAddress(owner, mint, tokenProgram = TOKEN_PROGRAM) {
  return findProgramAddress([base58Decode(owner), base58Decode(tokenProgram), base58Decode(mint)], ASSOCIATED_TOKEN_PROGRAM);
}

function concatBytes(parts) {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

function compactU16(n) {
  const out = [];
  let rest = n;
  for (;;) {
    const byte = rest & 0x7f;
    rest >>= 7;
    if (rest === 0) {
      out.push(byte);
      return Uint8Array.from(out);
    }
    out.push(byte | 0x80);
  }
}

function u64le(value) {
  const out = new Uint8Array(8);
  let rest = BigInt(value);
  for (let i = 0; i < 8; i++) {
    out[i] = Number(rest & 0xffn);
    rest >>= 8n;
  }
  return out;
}

/** A random 16-byte nonce as 32 hex characters: @x402/svm's memo when the offer names none. */
export function randomMemo(random = globalThis.crypto) {
  return Array.from(random.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * The unsigned v0 transaction the exact SVM scheme pays with, as @x402/svm's client builds it: the
 * facilitator's fee payer first, then SetComputeUnitLimit(20,000), SetComputeUnitPrice(1),
 * TransferChecked of exactly `amount` from the payer's associated token account to payTo's, signed by
 * the payer, and a memo. Both signature slots are empty: the wallet fills the payer's, the facilitator
 * its own. Resolves with the wire bytes.
 */
export async function solanaTransferTransaction(requirement, payer, recentBlockhash, memo = requirement.extra?.memo ?? randomMemo()) {
  const token = SOLANA_TOKENS.get(requirement.asset);
  if (!token) throw new Error(`this page does not know the token ${requirement.asset}`);
  if (token.tokenProgram !== TOKEN_PROGRAM && token.tokenProgram !== TOKEN_2022_PROGRAM) throw new Error('unknown token program');
  const feePayer = requirement.extra.feePayer;
  const [source, destination] = await Promise.all([
    associatedTokenAddress(payer, requirement.asset, token.tokenProgram),
    associatedTokenAddress(requirement.payTo, requirement.asset, token.tokenProgram),
  ]);
  // Signers (writable, then read-only), then writable accounts, then read-only ones: the v0 header's
  // order; within a group, @solana/kit's order (its getAddressComparator), so the bytes are the client's.
  const byAddress = new Intl.Collator('en', { caseFirst: 'lower', ignorePunctuation: false, numeric: false, sensitivity: 'variant', usage: 'sort' }).compare;
  const keys = [
    feePayer,
    payer,
    ...[source, destination].sort(byAddress),
    ...[requirement.asset, token.tokenProgram, COMPUTE_BUDGET_PROGRAM, MEMO_PROGRAM].sort(byAddress),
  ];
  const index = (key) => keys.indexOf(key);
  const limit = new Uint8Array(5);
  limit[0] = 2;
  new DataView(limit.buffer).setUint32(1, COMPUTE_UNIT_LIMIT, true);
  const instructions = [
    [index(COMPUTE_BUDGET_PROGRAM), [], limit],
    [index(COMPUTE_BUDGET_PROGRAM), [], concatBytes([Uint8Array.of(3), u64le(COMPUTE_UNIT_PRICE_MICROLAMPORTS)])],
    [
      index(token.tokenProgram),
      [index(source), index(requirement.asset), index(destination), index(payer)],
      concatBytes([Uint8Array.of(12), u64le(requirement.amount), Uint8Array.of(token.decimals)]),
    ],
    [index(MEMO_PROGRAM), [], new TextEncoder().encode(memo)],
  ];
  const message = concatBytes([
    Uint8Array.of(0x80, 2, 1, 4), // v0; 2 signatures, 1 of them read-only (the payer); 4 read-only accounts
    compactU16(keys.length),
    ...keys.map(base58Decode),
    base58Decode(recentBlockhash),
    compactU16(instructions.length),
    ...instructions.flatMap(([program, accounts, data]) => [
      Uint8Array.of(program),
      compactU16(accounts.length),
      Uint8Array.from(accounts),
      compactU16(data.length),
      data,
    ]),
    compactU16(0), // no address lookup tables
  ]);
  return concatBytes([compactU16(2), new Uint8Array(128), message]);
}

/** Bytes → base64, as the x402 payload carries a transaction. */
export function bytesToBase64(bytes) {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** The x402 v2 PaymentPayload of a Solana payment: the payer-signed transaction, base64. */
export function solanaPaymentPayload(required, requirement, signedTransaction) {
  return {
    x402Version: 2,
    resource: required.resource,
    accepted: requirement,
    payload: { transaction: bytesToBase64(signedTransaction) },
    ...(required.extensions ? { extensions: required.extensions } : {}),
  };
}
