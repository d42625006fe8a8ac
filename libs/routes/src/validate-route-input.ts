import { validateSync, type ValidatorOptions } from 'class-validator';
import { assertDtoFitsRoute, PRICED_ROUTES, type PricedRoute, type RouteParams } from './route-table.js';

export type RouteInputResult = { ok: true; params: RouteParams } | { ok: false; message: string };

/** A raw query as HTTP servers parse it: a repeated parameter arrives as an array. */
export type RawQuery = Record<string, string | string[] | undefined>;

/** One of a route's DTOs (path or query) with the parameters it is given, in documented order. */
interface DtoStep {
  dto: new () => object;
  names: readonly string[];
}

// NoQueryDto has no rules: with forbidUnknownValues (on by default) class-validator would refuse it.
const VALIDATION: ValidatorOptions = { stopAtFirstError: true, forbidUnknownValues: false };

const ROUTE_STEPS = new WeakMap<PricedRoute, readonly DtoStep[]>();

/** The route's DTOs, path first, each checked once to validate only parameters of the route. */
function routeSteps(route: PricedRoute): readonly DtoStep[] {
  let steps = ROUTE_STEPS.get(route);
  if (steps) return steps;
  steps = [
    { dto: route.pathDto, names: route.pathParams },
    { dto: route.queryDto, names: route.queryParams },
  ].filter((step): step is DtoStep => step.dto !== null);
  for (const { dto, names } of steps) assertDtoFitsRoute(route, dto, names);
  ROUTE_STEPS.set(route, steps);
  return steps;
}

// Checked at start-up, so a DTO that validates something other than its route's parameters fails to load.
for (const route of PRICED_ROUTES) routeSteps(route);

/**
 * Validates a request's path and query parameters against a route's DTOs with class-validator
 * (`validateSync`, stopping at a property's first failure). Unknown query parameters are ignored; a
 * known one given twice is an error. The first problem wins, path before query, in documented order,
 * and its message names the parameter.
 */
export function validateRouteInput(route: PricedRoute, pathParams: Record<string, string>, query: RawQuery): RouteInputResult {
  const params: RouteParams = {};
  for (const name of route.pathParams) params[name] = pathParams[name];
  for (const name of route.queryParams) {
    const value = query[name];
    if (Array.isArray(value)) return { ok: false, message: `${name} must be given only once` };
    params[name] = value;
  }
  for (const { dto, names } of routeSteps(route)) {
    const instance = new dto() as Record<string, unknown>;
    for (const name of names) if (params[name] !== undefined) instance[name] = params[name];
    const errors = validateSync(instance, VALIDATION);
    if (errors.length > 0) {
      const byName = new Map(errors.map((error) => [error.property, error]));
      const first = names.map((name) => byName.get(name)).find((error) => error !== undefined) ?? errors[0];
      return { ok: false, message: Object.values(first.constraints ?? {})[0] ?? `${first.property} is invalid` };
    }
  }
  return { ok: true, params };
}
