import { ISO_COUNTRY_CODES, ParamDefaults, ParamDescriptions, ParamLimits, type PricedRoute, ReviewsQueryDto } from '@appcat/routes';
import { isRequiredQueryParam, PARAM_EXAMPLES } from './service-facts.js';

/** A JSON Schema (2020-12, as OpenAPI 3.1 and the x402 bazaar use it). */
export type JsonSchema = Record<string, unknown>;

/** One parameter of a route as every document describes it. */
export interface ParamDoc {
  name: string;
  in: 'path' | 'query';
  required: boolean;
  description: string;
  schema: JsonSchema;
  example: string | number;
}

/** The numeric ids (bundle, developer) are at most 19 digits: `numericIdPattern` says so, the DTOs check it. */
const NUMERIC_ID_MAX_LENGTH = 19;

/** The page limit of a route: reviews pages are counted differently from search pages. */
export function maxPageOf(route: PricedRoute): number {
  return route.queryDto === ReviewsQueryDto ? ParamLimits.reviewsMaxPage : ParamLimits.searchMaxPage;
}

/**
 * The schema of one parameter on one route, from ParamLimits and ParamDefaults: the limits the DTOs
 * enforce. Every value arrives as a string (spec §4); `page` is written as an integer because that
 * is how it is serialised and what the rule is.
 */
export function paramSchema(route: PricedRoute, name: string): JsonSchema {
  switch (name) {
    case 'term':
      // Not blank: at least one character that is not white space.
      return { type: 'string', minLength: 1, maxLength: ParamLimits.termMaxLength, pattern: '\\S' };
    case 'page':
      return { type: 'integer', minimum: 1, maximum: maxPageOf(route), default: ParamDefaults.page };
    case 'country':
      // Case-insensitive ISO 3166-1 alpha-2; the list of assigned codes is in the description.
      return { type: 'string', pattern: '^[A-Za-z]{2}$', default: ParamDefaults.country };
    case 'lang':
      return { type: 'string', minLength: 1, maxLength: ParamLimits.langMaxLength, pattern: ParamLimits.langPattern.source };
    case 'sort':
      return { type: 'string', enum: [...ParamLimits.sortValues], default: ParamDefaults.sort };
    case 'appId':
      return { type: 'string', minLength: 1, maxLength: ParamLimits.idMaxLength, pattern: ParamLimits.bundleIdentifierPattern.source };
    case 'bundleId':
    case 'developerId':
      return { type: 'string', minLength: 1, maxLength: NUMERIC_ID_MAX_LENGTH, pattern: ParamLimits.numericIdPattern.source };
    default:
      throw new Error(`no documented schema for parameter ${name} of ${route.id}`);
  }
}

/** A parameter's description, with the facts a reader needs that the one-liner leaves out. */
function describe(route: PricedRoute, name: string): string {
  const base = ParamDescriptions[name];
  if (base === undefined) throw new Error(`no description for parameter ${name} of ${route.id}`);
  if (name === 'page') return `Page number from 1 to ${maxPageOf(route)} (${route.queryDto === ReviewsQueryDto ? '50 reviews' : '20 results'} a page). Default ${ParamDefaults.page}.`;
  if (name === 'country') return `${base} One of the ${ISO_COUNTRY_CODES.size} assigned codes.`;
  return base;
}

/** Path parameters first (in path order), then query parameters in documented order. */
export function routeParams(route: PricedRoute): ParamDoc[] {
  return [
    ...route.pathParams.map((name) => ({ name, in: 'path' as const, required: true })),
    ...route.queryParams.map((name) => ({ name, in: 'query' as const, required: isRequiredQueryParam(route, name) })),
  ].map((p) => ({ ...p, description: describe(route, p.name), schema: paramSchema(route, p.name), example: PARAM_EXAMPLES[p.name] }));
}

/** One line of rules for a parameter, for the markdown pages: "1–200 characters, not blank". */
export function ruleText(schema: JsonSchema): string {
  const parts: string[] = [];
  if (Array.isArray(schema.enum)) parts.push(`one of ${schema.enum.map((v) => `\`${String(v)}\``).join(', ')}`);
  if (schema.type === 'integer') parts.push(`integer ${String(schema.minimum)}–${String(schema.maximum)}`);
  if (schema.maxLength !== undefined) parts.push(`${String(schema.minLength ?? 0)}–${String(schema.maxLength)} characters`);
  if (schema.pattern !== undefined && schema.pattern !== '\\S') parts.push(`matches \`${String(schema.pattern)}\``);
  if (schema.pattern === '\\S') parts.push('not blank');
  if (schema.default !== undefined) parts.push(`default \`${String(schema.default)}\``);
  return parts.join('; ');
}
