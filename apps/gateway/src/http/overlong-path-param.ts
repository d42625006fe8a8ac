import { PRICED_ROUTES, validateRouteInput } from '@appcat/routes';
import { Messages } from '../errors/http-error.js';

/**
 * The router refuses a path parameter longer than its `maxParamLength` before any route runs
 * (FST_ERR_MAX_PARAM_LENGTH). Answer as the route itself would: the priced route whose template the
 * path fits validates the parameters, so the 400 names the parameter with the usual message; a path
 * that fits no priced route is a 404.
 */
export function answerForOverlongPathParam(url: string): { status: 400 | 404; message: string } {
  const segments = url.split('?')[0].split('/');
  for (const route of PRICED_ROUTES) {
    const template = route.path.split('/');
    if (template.length !== segments.length) continue;
    const params: Record<string, string> = {};
    const fits = template.every((part, i) => {
      const name = /^\{(\w+)\}$/.exec(part)?.[1];
      if (name === undefined) return part === segments[i];
      params[name] = safeDecode(segments[i]);
      return true;
    });
    if (!fits) continue;
    const input = validateRouteInput(route, params, {});
    return { status: 400, message: input.ok ? `${route.pathParams[0]} is too long` : input.message };
  }
  return { status: 404, message: Messages.notFound };
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
