import {
  formatUsd,
  MAX_TOPUP_MICROS,
  MIN_TOPUP_MICROS,
  type NetworkSet,
  PRICE_PER_CALL_MICROS,
  X402_NETWORKS,
  x402NetworksOf,
} from '@appcat/contracts';
import { type PricedRoute, routeParamSchemas } from '@appcat/routes';

/** What every document calls the service. */
export const SERVICE_NAME = 'appcat';
export const SERVICE_TITLE = 'appcat: pay-per-call App Store catalog for AI agents';
export const SERVICE_SUMMARY =
  'Nine read-only GET endpoints over the App Store (apps, bundles, reviews, similar items, developers), ' +
  'USD 0.003 a call, paid per call in USDC with x402 v2 or from prepaid credits (an API key). ' +
  'Every response is one JSON envelope {status, message, data}.';
/** The interface version (spec §9); paths carry none. */
export const API_VERSION = '1.0.0';

/** The informational addresses, free of charge, relative to the base URL. */
export const DOCUMENT_PATHS = {
  openapi: '/openapi.json',
  catalogue: '/index.md',
  llms: '/llms.txt',
  skill: '/skill.md',
  x402Discovery: '/.well-known/x402',
  /** The same document at the draft discovery path. */
  x402DiscoveryJson: '/.well-known/x402.json',
} as const;

/** What people and agents use besides the JSON routes: the MCP endpoint and the browser top-up page. */
export const INTERACTIVE_PATHS = { mcp: '/mcp', topUpPage: '/topup' } as const;

/** The credit routes; the gateway serves them from its credits controller. */
export const CREDIT_PATHS = { balance: '/api/credits/balance', topUp: '/api/credits/topup' } as const;

/** Header names of the payment protocol and of our answers. */
export const Headers = {
  paymentRequired: 'payment-required',
  paymentSignature: 'payment-signature',
  paymentResponse: 'payment-response',
  creditsRemaining: 'x-credits-remaining',
  cache: 'x-cache',
  requestId: 'x-request-id',
} as const;

/** A documented x402 network: its name as documents write it and its mainnet CAIP-2 id. */
export interface DocumentedNetwork {
  name: string;
  network: string;
  /** The networks of the standard set are on every offer; the extended ones only on the developers route. */
  set: NetworkSet;
}

/**
 * The networks as the spec names them (§5), with their mainnet ids, from the one network table
 * (`X402_NETWORKS`). Payments builds the live `accepts` lists from its configuration (a deployment may
 * switch a network off or use a testnet); the documents say so and point at the `payment-required`
 * header and /.well-known/x402 as the authority.
 */
export function networksOf(set: NetworkSet): DocumentedNetwork[] {
  return x402NetworksOf(set).map((n) => ({ name: n.title, network: n.network, set: n.set }));
}

/** "Base, Monad, Solana" */
export function networkNames(set: NetworkSet): string {
  return networksOf(set)
    .map((n) => n.name)
    .join(', ');
}

/** "Polygon, Arbitrum": the networks only the extended set has. */
export function extendedOnlyNetworkNames(): string {
  return X402_NETWORKS.filter((n) => n.set === 'extended')
    .map((n) => n.title)
    .join(', ');
}

/** 3000n → "0.003": the shortest decimal, as prices are usually written. */
export function usd(micros: bigint): string {
  return formatUsd(micros).replace(/0+$/, '').replace(/\.$/, '');
}

export const PRICE_USD = usd(PRICE_PER_CALL_MICROS);
export const MIN_TOPUP_USD = usd(MIN_TOPUP_MICROS);
export const MAX_TOPUP_USD = usd(MAX_TOPUP_MICROS);

/** Example values, one per parameter, that pass validation: the documents' sample calls use them. */
export const PARAM_EXAMPLES: Record<string, string | number> = {
  term: 'chess',
  page: 1,
  country: 'us',
  lang: 'en-us',
  sort: 'recent',
  appId: '284882215',
  bundleId: '1482985563',
  developerId: '284882218',
};

/** `/api/apps/{appId}` with the path filled in from the examples: `/api/apps/284882215`. */
export function examplePath(route: PricedRoute): string {
  return route.path.replace(/\{(\w+)\}/g, (_match, name: string) => encodeURIComponent(String(PARAM_EXAMPLES[name])));
}

/** The example values of the route's path parameters. */
export function examplePathParams(route: PricedRoute): Record<string, string> {
  return Object.fromEntries(route.pathParams.map((name) => [name, String(PARAM_EXAMPLES[name])]));
}

/** A call that passes validation, with only the required query parameters: `/api/apps?term=chess`. */
export function exampleUrlPath(route: PricedRoute): string {
  const required = route.queryParams.filter((name) => isRequiredQueryParam(route, name));
  const query = required.map((name) => `${name}=${encodeURIComponent(String(PARAM_EXAMPLES[name]))}`).join('&');
  return examplePath(route) + (query ? `?${query}` : '');
}

/** Whether the route's query DTO requires a query parameter (it is not `@IsOptional()`). */
export function isRequiredQueryParam(route: PricedRoute, name: string): boolean {
  return routeParamSchemas(route).query.required.includes(name);
}

/** The group a route belongs to, for OpenAPI tags and catalogue sections: "apps", "bundles", "developers". */
export function routeGroup(route: PricedRoute): string {
  return route.id.split('.')[0];
}
