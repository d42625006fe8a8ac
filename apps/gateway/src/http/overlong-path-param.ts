import { matchPricedRoute, type PricedRoute, validateRouteInput } from '@appcat/routes';
import { HttpError, Messages } from '../errors/http-error.js';

/**
 * The router refuses a path parameter longer than its `maxParamLength` before any route runs
 * (FST_ERR_MAX_PARAM_LENGTH). Answer as the route itself would: the priced route the path names
 * validates the parameters, so the 400 names the parameter with the usual message; a path that names
 * no priced route is a 404.
 */
export function overlongPathParamError(url: string, routes: readonly PricedRoute[]): HttpError {
  const match = matchPricedRoute(url.split('?')[0], routes);
  if (!match) return new HttpError(404, Messages.notFound);
  const input = validateRouteInput(match.route, match.params, {});
  return new HttpError(400, input.ok ? `${match.route.pathParams[0]} is too long` : input.message);
}
