import { type BazaarExtensions, bazaarDeclaration, bazaarExtensionsFor } from '@appcat/api-docs';
import { PRICED_ROUTES, type PricedRoute } from '@appcat/routes';
import { Inject, Injectable } from '@nestjs/common';
import { GATEWAY_CONFIG } from '../config.provider.js';
import type { GatewayConfig } from '../config.js';

interface RouteDeclaration {
  route: PricedRoute;
  /** Matches the route's paths: `/api/apps/{appId}` → `^/api/apps/[^/]+$`. */
  pattern: RegExp;
  declaration: ReturnType<typeof bazaarDeclaration>;
}

/**
 * The x402 `extensions` of a 402 challenge: the bazaar declaration of the priced route the resource
 * URL names, so facilitators and catalogues learn the route's input and output from the payment
 * itself. Declarations are built once; a request only adds its method and path parameters. A
 * resource that is not a priced route's URL (a top-up, an MCP tool) gets none.
 */
@Injectable()
export class ChallengeExtensions {
  private readonly routes: readonly RouteDeclaration[];

  constructor(@Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig) {
    this.routes = PRICED_ROUTES.map((route) => ({
      route,
      pattern: new RegExp(`^${route.path.replace(/\{\w+\}/g, '[^/]+')}$`),
      declaration: bazaarDeclaration(route),
    }));
  }

  for(resourceUrl: string): BazaarExtensions | undefined {
    const base = this.config.publicBaseUrl;
    if (!resourceUrl.startsWith(`${base}/`)) return undefined;
    const path = resourceUrl.slice(base.length).split('?')[0];
    const match = this.routes.find((r) => r.pattern.test(path));
    return match && bazaarExtensionsFor(match.declaration, match.route, path);
  }
}
