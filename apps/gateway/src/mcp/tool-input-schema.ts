import { type JsonSchema, type PricedRoute, routeParamSchemas } from '@appcat/routes';

export interface ToolInputSchema {
  type: 'object';
  properties: Record<string, JsonSchema>;
  required: string[];
  [key: string]: unknown;
}

/**
 * A tool's input schema: the route's path and query parameters in one object, with the schemas
 * `routeParamSchemas` generates from the route's DTOs, so it cannot drift from the validation. The
 * schema guides clients; the server still validates every call with `validateRouteInput`.
 */
export function toolInputSchema(route: PricedRoute): ToolInputSchema {
  const { path, query } = routeParamSchemas(route);
  return {
    type: 'object',
    properties: { ...path.properties, ...query.properties },
    required: [...path.required, ...query.required],
  };
}
