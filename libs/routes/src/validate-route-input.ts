import { validateSync } from 'class-validator';
import type { PricedRoute, RouteParams } from './route-table.js';

export type RouteInputResult = { ok: true; params: RouteParams } | { ok: false; message: string };

/** A raw query as HTTP servers parse it: a repeated parameter arrives as an array. */
export type RawQuery = Record<string, string | string[] | undefined>;

const VALIDATION = { stopAtFirstError: true, forbidUnknownValues: false } as const;

/**
 * Validates a request's path and query parameters against a route's DTOs. Unknown query parameters
 * are ignored; a known one given twice is an error. The first problem wins, path before query, in
 * documented order, and its message names the parameter.
 */
export function validateRouteInput(route: PricedRoute, pathParams: Record<string, string>, query: RawQuery): RouteInputResult {
  const params: RouteParams = {};
  for (const name of route.pathParams) params[name] = pathParams[name];
  for (const name of route.queryParams) {
    const value = query[name];
    if (Array.isArray(value)) return { ok: false, message: `${name} must be given only once` };
    params[name] = value;
  }
  for (const [dto, names] of [
    [route.pathDto, route.pathParams],
    [route.queryDto, route.queryParams],
  ] as const) {
    if (!dto) continue;
    const instance = new dto() as Record<string, unknown>;
    for (const name of names) if (params[name] !== undefined) instance[name] = params[name];
    const errors = validateSync(instance, VALIDATION);
    if (errors.length > 0) {
      const byName = new Map(errors.map((e) => [e.property, e]));
      const first = names.map((n) => byName.get(n)).find(Boolean) ?? errors[0];
      return { ok: false, message: Object.values(first.constraints ?? {})[0] ?? `${first.property} is invalid` };
    }
  }
  return { ok: true, params };
}
