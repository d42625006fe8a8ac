import type { X402Requirement } from '@appcat/contracts';
import { type PricedRoute, ROUTE_TABLES, type RouteTable } from '@appcat/routes';
import { bazaarDeclaration, bazaarExtensionsFor } from './bazaar.js';
import {
  CREDIT_PATHS,
  DOCUMENT_PATHS,
  examplePath,
  exampleUrlPath,
  PRICE_USD,
  SERVICE_NAME,
  serviceSummary,
} from './service-facts.js';

/** One paid resource, in the item shape of the x402 bazaar's discovery listing (DiscoveryResource). */
export interface X402DiscoveryItem {
  /** The route's URL template, absolute: `https://host/api/apps/{appId}`. */
  resource: string;
  /** A URL of the route that passes validation and answers with the 402 challenge. */
  example: string;
  type: 'http';
  method: 'GET';
  x402Version: 2;
  description: string;
  mimeType: 'application/json';
  serviceName: string;
  tags: string[];
  priceUsd: string;
  accepts: X402Requirement[];
  lastUpdated: string;
  extensions: { bazaar: unknown };
}

/**
 * The document at /.well-known/x402. It serves two readers at once: crawlers such as x402scan read
 * `version` and `resources` (absolute URLs they can probe for a 402); catalogues read `items`, the
 * x402 bazaar's listing shape with the live `accepts` of each route and its bazaar declaration.
 */
export interface X402DiscoveryDocument {
  version: 1;
  x402Version: 2;
  name: string;
  description: string;
  resources: string[];
  instructions: string;
  documents: Record<string, string>;
  items: X402DiscoveryItem[];
  pagination: { limit: number; offset: number; total: number };
}

/**
 * Builds the discovery document. `acceptsFor` gives a route's live accepts list (the one its 402
 * challenge carries); `generatedAt` stamps `lastUpdated`.
 */
export function buildX402Discovery(
  baseUrl: string,
  acceptsFor: (route: PricedRoute) => X402Requirement[],
  generatedAt: Date,
  table: RouteTable = ROUTE_TABLES.apple,
): X402DiscoveryDocument {
  const items: X402DiscoveryItem[] = table.routes.map((route) => ({
    resource: baseUrl + route.path,
    example: baseUrl + exampleUrlPath(route),
    type: 'http',
    method: 'GET',
    x402Version: 2,
    description: route.description,
    mimeType: 'application/json',
    serviceName: SERVICE_NAME,
    tags: [table.store === 'apple' ? 'app-store' : table.store, 'apps', route.id.split('.')[0]],
    priceUsd: PRICE_USD,
    accepts: acceptsFor(route),
    lastUpdated: generatedAt.toISOString(),
    // As the route's 402 challenge carries it for the example call.
    extensions: bazaarExtensionsFor(bazaarDeclaration(route), route, examplePath(route)),
  }));
  return {
    version: 1,
    x402Version: 2,
    name: SERVICE_NAME,
    description: serviceSummary(table),
    resources: items.map((item) => item.example),
    instructions:
      `Every resource is a GET costing USD ${PRICE_USD}: call it, answer the 402 (payment-required header) with an x402 v2 ` +
      `payment in payment-signature. Or buy prepaid credit at POST ${baseUrl}${CREDIT_PATHS.topUp}?amount=<USD> and send ` +
      `Authorization: Bearer <key>. Set-up guide: ${baseUrl}${DOCUMENT_PATHS.skill}.`,
    documents: Object.fromEntries(Object.entries(DOCUMENT_PATHS).map(([name, path]) => [name, baseUrl + path])),
    items,
    pagination: { limit: items.length, offset: 0, total: items.length },
  };
}
