import { matchPricedRoute, validateRouteInput } from '@appcat/routes';
import { Messages } from '../errors/http-error.js';

/**
 * The router refuses a path parameter longer than its `maxParamLength` before any route runs
 * (FST_ERR_MAX_PARAM_LENGTH). Answer as the route itself would: the priced route the path names
 * validates the parameters, so the 400 names the parameter with the usual message; a path that names
 * no priced route is a 404.
 */
export function answerForOverlongPathParam(url: string): { status: 400 | 404; message: string } {
  const match = matchPricedRoute(url.split('?')[0]);
  if (!match) return { status: 404, message: Messages.notFound };
  const input = validateRouteInput(match.route, match.params, {});
  return { status: 400, message: input.ok ? `${match.route.pathParams[0]} is too long` : input.message };
}
