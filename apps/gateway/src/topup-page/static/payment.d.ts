// Types of payment.js for the gateway's TypeScript tests; the browser loads the .js as it is.

export interface EvmRequirement {
  scheme: string;
  network: string;
  amount: string;
  asset: string;
  payTo: string;
  maxTimeoutSeconds: number;
  extra: { name: string; version: string; [field: string]: unknown };
}

export interface PaymentRequiredV2 {
  x402Version: 2;
  resource?: { url: string; description?: string; mimeType?: string };
  accepts: EvmRequirement[];
  extensions?: Record<string, unknown>;
  error?: string;
}

export interface TransferAuthorization {
  from: string;
  to: string;
  value: string;
  validAfter: string;
  validBefore: string;
  nonce: string;
}

export const MIN_TOPUP_MICROS: bigint;
export const MAX_TOPUP_MICROS: bigint;
export function parseTopUpAmount(text: string): { micros: bigint; text: string; error?: undefined } | { error: string; micros?: undefined };
export function formatMicros(micros: bigint | string): string;
export function decodePaymentRequired(header: string | null): PaymentRequiredV2;
export function encodePaymentSignature(payload: unknown): string;
export function evmAccepts(required: PaymentRequiredV2): EvmRequirement[];
export function chainIdOf(network: string): number;
export function chainName(chainId: number): string;
export function randomNonce(random?: { getRandomValues(bytes: Uint8Array): Uint8Array }): `0x${string}`;
export function transferAuthorization(requirement: EvmRequirement, from: string, nowSeconds: number, nonce: string): TransferAuthorization;
export function transferAuthorizationTypedData(
  requirement: EvmRequirement,
  authorization: TransferAuthorization,
): {
  types: Record<string, { name: string; type: string }[]>;
  primaryType: 'TransferWithAuthorization';
  domain: { name: string; version: string; chainId: number; verifyingContract: string };
  message: TransferAuthorization;
};
export function paymentPayload(
  required: PaymentRequiredV2,
  requirement: EvmRequirement,
  authorization: TransferAuthorization,
  signature: string,
): { x402Version: 2; resource?: PaymentRequiredV2['resource']; accepted: EvmRequirement; payload: { authorization: TransferAuthorization; signature: string } };

export interface SvmRequirement {
  scheme: string;
  network: string;
  amount: string;
  asset: string;
  payTo: string;
  maxTimeoutSeconds: number;
  extra: { feePayer: string; memo?: string; [field: string]: unknown };
}
export const TOKEN_PROGRAM: string;
export function base58Encode(bytes: Uint8Array): string;
export function base58Decode(text: string): Uint8Array;
export function solanaAccepts(required: PaymentRequiredV2 | { accepts: unknown[] }): SvmRequirement[];
export function networkName(network: string): string;
export function walletChainOf(network: string): string;
export function isOnCurve(bytes: Uint8Array): boolean;
export function findProgramAddress(seeds: Uint8Array[], programId: string, subtle?: SubtleCrypto): Promise<string>;
export function associatedTokenAddress(owner: string, mint: string, tokenProgram?: string): Promise<string>;
export function randomMemo(random?: { getRandomValues(bytes: Uint8Array): Uint8Array }): string;
export function solanaTransferTransaction(requirement: SvmRequirement, payer: string, recentBlockhash: string, memo?: string): Promise<Uint8Array>;
export function bytesToBase64(bytes: Uint8Array): string;
export function solanaPaymentPayload(
  required: { resource?: unknown; extensions?: Record<string, unknown> },
  requirement: SvmRequirement,
  signedTransaction: Uint8Array,
): { x402Version: 2; resource?: unknown; accepted: SvmRequirement; payload: { transaction: string } };
