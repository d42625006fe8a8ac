import { ParamDefaults, ParamDescriptions, ParamLimits, type PricedRoute } from '@appcat/routes';
import { getMetadataStorage, ValidationTypes } from 'class-validator';

/** The subset of JSON Schema (2020-12) the tool input schemas use. */
export interface ParamSchema {
  type: 'string' | 'integer';
  description: string;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  enum?: readonly string[];
  minimum?: number;
  maximum?: number;
  default?: string | number;
}

export interface ToolInputSchema {
  type: 'object';
  properties: Record<string, ParamSchema>;
  required: string[];
  [key: string]: unknown;
}

/** Digits of a numeric App Store id: `numericIdPattern` allows up to 19. */
const NUMERIC_ID_MAX_LENGTH = 19;

/**
 * A tool's input schema, generated from the route's parameters and the same rules its DTOs enforce
 * (ParamLimits, ParamDefaults, ParamDescriptions). Which parameters are required and the page range
 * are read from the DTOs' class-validator metadata, so the schema cannot drift from the validation.
 * The schema guides clients; the server still validates every call with `validateRouteInput`.
 */
export function toolInputSchema(route: PricedRoute): ToolInputSchema {
  const properties: Record<string, ParamSchema> = {};
  const required: string[] = [...route.pathParams];
  for (const name of route.pathParams) properties[name] = paramSchema(name, route);
  const optional = optionalProperties(route.queryDto);
  for (const name of route.queryParams) {
    properties[name] = paramSchema(name, route);
    if (!optional.has(name)) required.push(name);
  }
  return { type: 'object', properties, required };
}

function paramSchema(name: string, route: PricedRoute): ParamSchema {
  const description = ParamDescriptions[name];
  if (description === undefined) throw new Error(`parameter ${name} of ${route.id} has no description`);
  switch (name) {
    case 'term':
      return { type: 'string', description, minLength: 1, maxLength: ParamLimits.termMaxLength };
    case 'page':
      return { type: 'integer', description, minimum: 1, maximum: maxPage(route), default: ParamDefaults.page };
    case 'country':
      return { type: 'string', description, pattern: '^[A-Za-z]{2}$', default: ParamDefaults.country };
    case 'lang':
      return { type: 'string', description, maxLength: ParamLimits.langMaxLength, pattern: ParamLimits.langPattern.source };
    case 'sort':
      return { type: 'string', description, enum: ParamLimits.sortValues, default: ParamDefaults.sort };
    case 'appId':
      return { type: 'string', description, maxLength: ParamLimits.idMaxLength, pattern: ParamLimits.bundleIdentifierPattern.source };
    case 'bundleId':
    case 'developerId':
      return { type: 'string', description, maxLength: NUMERIC_ID_MAX_LENGTH, pattern: ParamLimits.numericIdPattern.source };
    default:
      throw new Error(`parameter ${name} of ${route.id} has no tool schema`);
  }
}

function metadataOf(dto: PricedRoute['queryDto']) {
  return getMetadataStorage().getTargetValidationMetadatas(dto, '', true, false);
}

/** Properties the DTO marks `@IsOptional()`; every other one is required. */
function optionalProperties(dto: PricedRoute['queryDto']): Set<string> {
  return new Set(
    metadataOf(dto)
      .filter((m) => m.type === ValidationTypes.CONDITIONAL_VALIDATION)
      .map((m) => m.propertyName),
  );
}

/** The highest page the route's DTO accepts: the constraint its page validator was given. */
function maxPage(route: PricedRoute): number {
  const limit = metadataOf(route.queryDto).find(
    (m) => m.propertyName === 'page' && m.type === ValidationTypes.CUSTOM_VALIDATION && typeof m.constraints?.[0] === 'number',
  )?.constraints[0] as number | undefined;
  if (limit === undefined) throw new Error(`the page parameter of ${route.id} has no range in its DTO`);
  return limit;
}
