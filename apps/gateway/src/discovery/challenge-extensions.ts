import { type BazaarExtensions, bazaarDeclaration, bazaarExtensionsFor } from '@appcat/api-docs';
import type { RouteId } from '@appcat/contracts';
import { matchPricedRoute, type PricedRoute, ROUTE_TABLES } from '@appcat/routes';
import { Inject, Injectable } from '@nestjs/common';
import { GATEWAY_CONFIG } from '../config.provider.js';
import type { GatewayConfig } from '../config.js';

/**
 * The x402 `extensions` of a 402 challenge: the bazaar declaration of the priced route the resource
 * URL names, so facilitators and catalogues learn the route's input and output from the payment
 * itself. Declarations are built once; a request only adds its method and path parameters. A
 * resource that is not a priced route's URL (a top-up, an MCP tool) gets none.
 */
@Injectable()
export class ChallengeExtensions {
  private readonly declarations: ReadonlyMap<RouteId, ReturnType<typeof bazaarDeclaration>>;
  private readonly routes: readonly PricedRoute[];

  constructor(@Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig) {
    this.routes = ROUTE_TABLES[config.store].routes;
    this.declarations = new Map(this.routes.map((route) => [route.id, bazaarDeclaration(route)]));
  }

  for(resourceUrl: string): BazaarExtensions | undefined {
    const base = this.config.publicBaseUrl;
    if (!resourceUrl.startsWith(`${base}/`)) return undefined;
    const path = resourceUrl.slice(base.length).split('?')[0];
    const match = matchPricedRoute(path, this.routes);
    return match && bazaarExtensionsFor(this.declarations.get(match.route.id)!, match.route, path);
  }
}
