import {
  compileDtoChecks,
  type DtoChecks,
  type DtoClass,
  firstFailedCheck,
  type PropertyChecks,
} from './dto-checks.js';
import { ALL_PRICED_ROUTES, type PricedRoute, type RouteParams } from './route-table.js';

export type RouteInputResult = { ok: true; params: RouteParams } | { ok: false; message: string };

/** A raw query as HTTP servers parse it: a repeated parameter arrives as an array. */
export type RawQuery = Record<string, string | string[] | undefined>;

/** One of a route's DTOs (path or query) with its parameters and their checks, in the route's documented order. */
interface DtoStep {
  checks: DtoChecks;
  names: readonly string[];
  properties: readonly { name: string; checks: PropertyChecks | undefined }[];
}

/** A UTF-16 surrogate standing alone: under the `u` flag a well-formed pair reads as one code point. */
const LONE_SURROGATE = /\p{Surrogate}/u;

/**
 * Refuses a value that is not well-formed Unicode text (a lone surrogate, which JSON can carry): no URL,
 * cache key or upstream request can hold it. Checked for every parameter, before its own rules.
 */
export function illFormedText(name: string, value: unknown): RouteInputResult | undefined {
  if (typeof value !== 'string' || !LONE_SURROGATE.test(value)) return undefined;
  return { ok: false, message: `${name} must be well-formed Unicode text: it holds a lone UTF-16 surrogate` };
}

const DTO_CHECKS = new Map<DtoClass, DtoChecks>();
const ROUTE_STEPS = new WeakMap<PricedRoute, readonly DtoStep[]>();

/** The route's compiled checks, path DTO first; compiled on first use and kept. */
function routeSteps(route: PricedRoute): readonly DtoStep[] {
  const compiled = ROUTE_STEPS.get(route);
  if (compiled) return compiled;
  const steps: DtoStep[] = [];
  for (const [dto, names] of [
    [route.pathDto, route.pathParams],
    [route.queryDto, route.queryParams],
  ] as const) {
    if (!dto) continue;
    let checks = DTO_CHECKS.get(dto);
    if (!checks) DTO_CHECKS.set(dto, (checks = compileDtoChecks(dto)));
    const properties = names.map((name) => {
      const property = checks.properties.get(name);
      return { name, checks: property && property.checks.length > 0 ? property : undefined };
    });
    steps.push({ checks, names, properties });
  }
  ROUTE_STEPS.set(route, steps);
  return steps;
}

// Compiled at start-up, so a DTO using validation the compiler does not understand fails to load, not on a request.
for (const route of ALL_PRICED_ROUTES) routeSteps(route);

/**
 * The route's own parameters from the path and the query, unchecked; unknown query parameters are left
 * out, and a known one given twice (an array) is refused.
 */
export function gatherRouteParams(
  route: PricedRoute,
  pathParams: Record<string, string>,
  query: RawQuery,
): RouteInputResult {
  const params: RouteParams = {};
  for (const name of route.pathParams) params[name] = pathParams[name];
  for (const name of route.queryParams) {
    const value = query[name];
    if (Array.isArray(value)) return { ok: false, message: `${name} must be given only once` };
    params[name] = value;
  }
  return { ok: true, params };
}

/**
 * Validates a request's path and query parameters against a route's DTOs. Unknown query parameters
 * are ignored; a known one given twice is an error. The first problem wins, path before query, in
 * documented order, and its message names the parameter. A value holding a lone surrogate is refused
 * before its rules. The DTOs' class-validator rules run as
 * `validateSync` with stopAtFirstError would run them, compiled once per DTO (see dto-checks.ts).
 */
export function validateRouteInput(
  route: PricedRoute,
  pathParams: Record<string, string>,
  query: RawQuery,
): RouteInputResult {
  const gathered = gatherRouteParams(route, pathParams, query);
  if (!gathered.ok) return gathered;
  const { params } = gathered;
  for (const step of routeSteps(route)) {
    let instance: object | undefined;
    for (const { name, checks: property } of step.properties) {
      const value = params[name];
      const illFormed = illFormedText(name, value);
      if (illFormed) return illFormed;
      if (!property || (property.optional && (value === undefined || value === null))) continue;
      instance ??= instantiate(step, params);
      const failure = firstFailedCheck(step.checks, property, value, instance);
      if (failure) return { ok: false, message: failure.message ?? `${name} is invalid` };
    }
  }
  return { ok: true, params };
}

/** The DTO instance validateSync would have been given, for the validation arguments' `object`. */
function instantiate(step: DtoStep, params: RouteParams): object {
  const instance = new step.checks.dto() as Record<string, unknown>;
  for (const name of step.names) if (params[name] !== undefined) instance[name] = params[name];
  return instance;
}
