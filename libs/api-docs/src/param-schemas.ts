import { type JsonSchema, type ParamsSchema, type PricedRoute, routeParamSchemas } from '@appcat/routes';
import { paramExample } from './service-facts.js';

export type { JsonSchema } from '@appcat/routes';

/** One parameter of a route as every document describes it. */
export interface ParamDoc {
  name: string;
  in: 'path' | 'query';
  required: boolean;
  description: string;
  /** Its JSON Schema without the description, which OpenAPI and the markdown tables put beside it. */
  schema: JsonSchema;
  example: string | number;
}

/**
 * Path parameters first (in path order), then query parameters in documented order, from the
 * schemas `routeParamSchemas` generates from the route's DTOs: the limits the validation enforces.
 * Every value arrives as a string (spec §4); `page` is written as an integer because that is how it
 * is serialised and what the rule is.
 */
export function routeParams(route: PricedRoute): ParamDoc[] {
  const { path, query } = routeParamSchemas(route);
  return [...paramDocs(route, 'path', path), ...paramDocs(route, 'query', query)];
}

function paramDocs(route: PricedRoute, location: ParamDoc['in'], params: ParamsSchema): ParamDoc[] {
  return Object.entries(params.properties).map(([name, { description, ...schema }]) => ({
    name,
    in: location,
    required: params.required.includes(name),
    description: String(description),
    schema,
    example: paramExample(route, name),
  }));
}

/** One line of rules for a parameter, for the markdown pages: "1–200 characters, not blank". */
export function ruleText(schema: JsonSchema): string {
  const parts: string[] = [];
  if (Array.isArray(schema.enum)) parts.push(`one of ${schema.enum.map((v) => `\`${String(v)}\``).join(', ')}`);
  if (schema.type === 'integer') parts.push(`integer ${String(schema.minimum)}–${String(schema.maximum)}`);
  if (schema.maxLength !== undefined) {
    parts.push(
      schema.minLength === undefined
        ? `at most ${String(schema.maxLength)} characters`
        : `${String(schema.minLength)}–${String(schema.maxLength)} characters`,
    );
  }
  if (schema.pattern !== undefined && schema.pattern !== '\\S') parts.push(`matches \`${String(schema.pattern)}\``);
  if (schema.pattern === '\\S') parts.push('not blank');
  if (schema.default !== undefined) parts.push(`default \`${String(schema.default)}\``);
  return parts.join('; ');
}
