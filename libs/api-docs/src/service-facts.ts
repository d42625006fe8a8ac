import {
  formatUsd,
  MAX_TOPUP_MICROS,
  MIN_TOPUP_MICROS,
  type NetworkSet,
  PRICE_PER_CALL_MICROS,
  X402_NETWORKS,
  x402NetworksOf,
} from '@appcat/contracts';
import { type PricedRoute, ROUTE_TABLES, routeParamSchemas, type RouteTable } from '@appcat/routes';

/** What every document calls the service. */
export const SERVICE_NAME = 'appcat';
const COUNT_WORDS = [
  'No',
  'One',
  'Two',
  'Three',
  'Four',
  'Five',
  'Six',
  'Seven',
  'Eight',
  'Nine',
  'Ten',
  'Eleven',
  'Twelve',
];

/** "Nine read-only GET endpoints": the number of a table's routes in words. */
export function routeCount(table: RouteTable, noun = 'read-only GET endpoint'): string {
  const n = table.routes.length;
  return `${COUNT_WORDS[n] ?? n} ${noun}${n === 1 ? '' : 's'}`;
}

/** The title of one store's address. */
export function serviceTitle(table: RouteTable): string {
  return `appcat: pay-per-call ${table.storeName} catalog for AI agents`;
}

/** The one-paragraph summary of one store's address. */
export function serviceSummary(table: RouteTable): string {
  return (
    `${routeCount(table)} of the ${table.storeName} catalog (${table.covers}), ` +
    `USD ${usd(PRICE_PER_CALL_MICROS)} a call, paid per call in USDC with x402 v2 or from prepaid credits (an API key). ` +
    'Every response is one JSON envelope {status, message, data}.'
  );
}

/** The charging rule, in the one sentence every document states it. */
export const FAILED_CALL_RULE =
  'A failed call is never charged: the price is held, the data fetched, and the charge taken only with the data in hand; ' +
  'any failure gives the hold back and is answered with nothing charged.';

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
/** The App Store address's title and summary. */
export const SERVICE_TITLE = serviceTitle(ROUTE_TABLES.apple);
export const SERVICE_SUMMARY = serviceSummary(ROUTE_TABLES.apple);
export const MIN_TOPUP_USD = usd(MIN_TOPUP_MICROS);
export const MAX_TOPUP_USD = usd(MAX_TOPUP_MICROS);

/** Example values, one per parameter, that pass the App Store's validation: the documents' sample calls use them. */
export const PARAM_EXAMPLES: Record<string, string | number> = {
  term: 'chess',
  page: 1,
  country: 'us',
  lang: 'en-us',
  sort: 'recent',
  appId: '284882215',
  bundleId: '1482985563',
  developerId: '284882218',
  chart: 'top-free',
  genre: '6014',
};

/** Where another store's parameters differ: Google Play's developer (Google LLC's page). */
const STORE_EXAMPLES: Readonly<Partial<Record<PricedRoute['store'], Record<string, string | number>>>> = {
  'google-play': { developerId: '5700313618786177705', appId: 'com.mojang.minecraftpe' },
};

/** The example value of one of a route's parameters. */
export function paramExample(route: PricedRoute, name: string): string | number {
  return STORE_EXAMPLES[route.store]?.[name] ?? PARAM_EXAMPLES[name];
}

/** `/api/apps/{appId}` with the path filled in from the examples: `/api/apps/284882215`. */
export function examplePath(route: PricedRoute): string {
  return route.path.replace(/\{(\w+)\}/g, (_match, name: string) =>
    encodeURIComponent(String(paramExample(route, name))),
  );
}

/** The example values of the route's path parameters. */
export function examplePathParams(route: PricedRoute): Record<string, string> {
  return Object.fromEntries(route.pathParams.map((name) => [name, String(paramExample(route, name))]));
}

/** A call that passes validation, with only the required query parameters: `/api/apps?term=chess`. */
export function exampleUrlPath(route: PricedRoute): string {
  const required = route.queryParams.filter((name) => isRequiredQueryParam(route, name));
  const query = required.map((name) => `${name}=${encodeURIComponent(String(paramExample(route, name)))}`).join('&');
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
