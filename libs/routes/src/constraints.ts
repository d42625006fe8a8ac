import { type ValidationArguments, ValidatorConstraint, type ValidatorConstraintInterface } from 'class-validator';
import type { targetConstructorToSchema } from 'class-validator-jsonschema';
import { ISO_COUNTRY_CODES } from './countries.js';
import { ParamLimits } from './param-rules.js';

/*
 * The parameter rules class-validator has no decorator for, each with the JSON Schema that says it
 * (class-validator-jsonschema's `additionalConverters`, keyed by the constraint's name).
 */

type SchemaConverters = NonNullable<Parameters<typeof targetConstructorToSchema>[1]>['additionalConverters'];

const IS_ISO_COUNTRY = 'isoCountry';
const IS_PAGE_IN_RANGE = 'pageInRange';
const IS_NOT_BLANK = 'notBlank';

@ValidatorConstraint({ name: IS_ISO_COUNTRY })
export class IsIsoCountry implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return typeof value === 'string' && ISO_COUNTRY_CODES.has(value.toLowerCase());
  }
  defaultMessage(): string {
    return 'country must be an ISO 3166-1 alpha-2 country code such as us';
  }
}

/** The highest page: the constraint `Validate(IsPageInRange, [max])` was given. */
const maxPage = (constraints: unknown[] | undefined): number =>
  (constraints?.[0] as number | undefined) ?? ParamLimits.firstPage;

@ValidatorConstraint({ name: IS_PAGE_IN_RANGE })
export class IsPageInRange implements ValidatorConstraintInterface {
  validate(value: unknown, args?: ValidationArguments): boolean {
    return typeof value === 'string' && /^[1-9]\d{0,2}$/.test(value) && Number(value) <= maxPage(args?.constraints);
  }
  defaultMessage(args?: ValidationArguments): string {
    return `page must be an integer from ${ParamLimits.firstPage} to ${maxPage(args?.constraints)}`;
  }
}

@ValidatorConstraint({ name: IS_NOT_BLANK })
export class IsNotBlank implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return typeof value === 'string' && value.trim().length > 0;
  }
  defaultMessage(): string {
    return 'term must not be empty';
  }
}

export const CONSTRAINT_SCHEMAS: SchemaConverters = {
  // Two letters, either case; that they are an assigned code is beyond JSON Schema (the description says it).
  [IS_ISO_COUNTRY]: { type: 'string', pattern: '^[A-Za-z]{2}$' },
  // A page arrives as text but is an integer, and is written as one (a query string, an MCP argument).
  [IS_PAGE_IN_RANGE]: (meta) => ({
    type: 'integer',
    minimum: ParamLimits.firstPage,
    maximum: maxPage(meta.constraints),
  }),
  // `trim()` removes exactly what `\s` matches (ECMAScript white space and line terminators).
  [IS_NOT_BLANK]: { type: 'string', pattern: '\\S' },
};
