import { targetConstructorToSchema } from 'class-validator-jsonschema';
import { CONSTRAINT_SCHEMAS } from './constraints.js';
import type { PricedRoute } from './route-table.js';

/** A JSON Schema (2020-12, as OpenAPI 3.1, MCP tool input schemas and the x402 bazaar use it). */
export type JsonSchema = Record<string, unknown>;

/** The parameters a route takes in one place (path or query), as an object schema (a type, so it is a JsonSchema too). */
export type ParamsSchema = {
  type: 'object';
  /** One schema per parameter, with its `description`, in the route's documented order. */
  properties: Record<string, JsonSchema>;
  /** The parameters the DTO does not mark `@IsOptional()`, in documented order. */
  required: string[];
};

/** A route's parameter schemas: its path DTO's and its query DTO's. */
export interface RouteParamSchemas {
  path: ParamsSchema;
  query: ParamsSchema;
}

const GENERATED = new WeakMap<PricedRoute, RouteParamSchemas>();

/** Keywords in the order the documents have always written them; any other follows. */
const KEYWORD_ORDER = [
  'type',
  'description',
  'enum',
  'minimum',
  'maximum',
  'minLength',
  'maxLength',
  'pattern',
  'default',
];

/**
 * The JSON Schemas of a route's parameters, generated from its DTOs' class-validator metadata by
 * class-validator-jsonschema (our own constraints through CONSTRAINT_SCHEMAS): every document that
 * describes a parameter (OpenAPI, the markdown pages, the MCP tool input schemas, the bazaar
 * declarations) takes it from here, so none can say other than the validation does. Generated once
 * per route (it takes a fraction of a millisecond); each call gets its own copy to change.
 */
export function routeParamSchemas(route: PricedRoute): RouteParamSchemas {
  let schemas = GENERATED.get(route);
  if (!schemas) {
    schemas = {
      path: dtoSchema(route, route.pathDto, route.pathParams),
      query: dtoSchema(route, route.queryDto, route.queryParams),
    };
    GENERATED.set(route, schemas);
  }
  return structuredClone(schemas);
}

function dtoSchema(route: PricedRoute, dto: PricedRoute['pathDto'], names: readonly string[]): ParamsSchema {
  const generated = dto ? targetConstructorToSchema(dto, { additionalConverters: CONSTRAINT_SCHEMAS }) : {};
  const properties = (generated.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set(generated.required ?? []);
  for (const name of names) {
    if (!properties[name]) throw new Error(`parameter ${name} of ${route.id} has no rule in its DTO`);
  }
  return {
    type: 'object',
    properties: Object.fromEntries(names.map((name) => [name, inKeywordOrder(properties[name])])),
    required: names.filter((name) => required.has(name)),
  };
}

function inKeywordOrder(schema: JsonSchema): JsonSchema {
  const rank = (key: string) => (KEYWORD_ORDER.includes(key) ? KEYWORD_ORDER.indexOf(key) : KEYWORD_ORDER.length);
  return Object.fromEntries(Object.entries(schema).sort(([a], [b]) => rank(a) - rank(b)));
}
