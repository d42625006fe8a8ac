import type { NetworkSet, X402Offer } from './x402.js';

/** Short name of an x402 network, as settings spell it (`X402_<NAME>_PAY_TO`) and the demo's `--network` flag. */
export type X402NetworkName = 'base' | 'monad' | 'solana' | 'polygon' | 'arbitrum';

/**
 * One network x402 payments can arrive on, with its mainnet facts (shared/reference/x402-v2.md):
 * the CAIP-2 id, USDC's address or mint and, on EVM chains, the token's EIP-712 domain.
 */
export interface X402NetworkFacts {
  name: X402NetworkName;
  /** How documents write it: "Base". */
  title: string;
  /** CAIP-2 id. */
  network: string;
  kind: 'evm' | 'svm';
  /** 'standard' networks are on every offer; 'extended' ones only on offers for the extended set (the developers route). */
  set: NetworkSet;
  /** EVM chain id (EVM only). */
  chainId?: number;
  /** USDC contract address or mint. */
  asset: string;
  /** EIP-712 domain of the token (EVM only). */
  assetName?: string;
  assetVersion?: string;
}

/**
 * The networks the spec names (§5), in the order clients see them: Base, Monad, Solana, then the
 * developers route's Polygon and Arbitrum. The one table payments, the documents and the local stack read.
 */
export const X402_NETWORKS: readonly X402NetworkFacts[] = [
  {
    name: 'base',
    title: 'Base',
    network: 'eip155:8453',
    kind: 'evm',
    set: 'standard',
    chainId: 8453,
    asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
    assetName: 'USD Coin',
    assetVersion: '2',
  },
  {
    name: 'monad',
    title: 'Monad',
    network: 'eip155:143',
    kind: 'evm',
    set: 'standard',
    chainId: 143,
    asset: '0x754704Bc059F8C67012fEd69BC8A327a5aafb603',
    assetName: 'USDC',
    assetVersion: '2',
  },
  {
    name: 'solana',
    title: 'Solana',
    network: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp',
    kind: 'svm',
    set: 'standard',
    asset: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
  },
  {
    name: 'polygon',
    title: 'Polygon',
    network: 'eip155:137',
    kind: 'evm',
    set: 'extended',
    chainId: 137,
    asset: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359',
    assetName: 'USD Coin',
    assetVersion: '2',
  },
  {
    name: 'arbitrum',
    title: 'Arbitrum',
    network: 'eip155:42161',
    kind: 'evm',
    set: 'extended',
    chainId: 42161,
    asset: '0xaf88d065e77c8cC2239327C5EDb3A432268e5831',
    assetName: 'USD Coin',
    assetVersion: '2',
  },
];

/** The EVM networks of the table, in offer order. */
export const X402_EVM_NETWORKS: readonly X402NetworkFacts[] = X402_NETWORKS.filter((n) => n.kind === 'evm');

/** Whether a network of `networkSet` is on an offer for `offerSet`: standard ones always, extended ones only on extended offers. */
export function offersNetworkSet(offerSet: NetworkSet, networkSet: NetworkSet): boolean {
  return networkSet === 'standard' || offerSet === 'extended';
}

/** The table's networks an offer for `set` lists, in offer order. */
export function x402NetworksOf(set: NetworkSet): X402NetworkFacts[] {
  return X402_NETWORKS.filter((n) => offersNetworkSet(set, n.set));
}

/** The facts of a network by its short name; throws for an unknown one. */
export function x402Network(name: X402NetworkName): X402NetworkFacts {
  const found = X402_NETWORKS.find((n) => n.name === name);
  if (!found) throw new Error(`unknown x402 network ${name}`);
  return found;
}

/** What a priced route sells: its price, on its route's networks. */
export function routeOffer(route: { price: bigint; networks: NetworkSet }): X402Offer {
  return { price: route.price.toString(), networks: route.networks };
}

/** What a top-up of `amount` µUSD sells: that much credit, paid on the standard networks. */
export function topUpOffer(amount: bigint | string): X402Offer {
  return { price: amount.toString(), networks: 'standard' };
}

/** The key an offer's `accepts` list is cached under: offers with equal keys have equal lists. */
export function acceptsKey(offer: X402Offer): string {
  return `${offer.networks}:${offer.price}`;
}

/**
 * EIP-3009's typed-data type (USDC's `transferWithAuthorization`), which every `exact` payment on an
 * EVM network signs.
 */
export const TRANSFER_WITH_AUTHORIZATION_TYPES = {
  TransferWithAuthorization: [
    { name: 'from', type: 'address' },
    { name: 'to', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'validAfter', type: 'uint256' },
    { name: 'validBefore', type: 'uint256' },
    { name: 'nonce', type: 'bytes32' },
  ],
} as const;
