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
