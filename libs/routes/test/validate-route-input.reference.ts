import { validateSync } from 'class-validator';
import type { PricedRoute } from '../src/route-table.js';
import { gatherRouteParams, illFormedText, type RawQuery, type RouteInputResult } from '../src/validate-route-input.js';

/*
 * Test code, kept out of the package's src: validateRouteInput as it was before its checks were
 * compiled, calling class-validator's validateSync on every call. The property test holds the compiled
 * version to the same results and messages as this one. Gathering the parameters and the lone-surrogate
 * rule (ours, not a DTO's) are shared: only the DTOs' checks are compared.
 */

const VALIDATION = { stopAtFirstError: true, forbidUnknownValues: false } as const;

export function validateRouteInputReference(
  route: PricedRoute,
  pathParams: Record<string, string>,
  query: RawQuery,
): RouteInputResult {
  const gathered = gatherRouteParams(route, pathParams, query);
  if (!gathered.ok) return gathered;
  const { params } = gathered;
  for (const [dto, names] of [
    [route.pathDto, route.pathParams],
    [route.queryDto, route.queryParams],
  ] as const) {
    if (!dto) continue;
    const instance = new dto() as Record<string, unknown>;
    for (const name of names) if (params[name] !== undefined) instance[name] = params[name];
    const errors = validateSync(instance, VALIDATION);
    const byName = new Map(errors.map((e) => [e.property, e]));
    for (const name of names) {
      const illFormed = illFormedText(name, params[name]);
      if (illFormed) return illFormed;
      const error = byName.get(name);
      if (error) return { ok: false, message: Object.values(error.constraints ?? {})[0] ?? `${name} is invalid` };
    }
    if (errors.length > 0) {
      const first = errors[0];
      return { ok: false, message: Object.values(first.constraints ?? {})[0] ?? `${first.property} is invalid` };
    }
  }
  return { ok: true, params };
}
