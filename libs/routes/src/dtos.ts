import {
  IsIn,
  IsNotEmpty,
  IsOptional,
  Matches,
  MaxLength,
  Validate,
  ValidatorConstraint,
  type ValidationArguments,
  type ValidatorConstraintInterface,
} from 'class-validator';
import { ISO_COUNTRY_CODES } from './countries.js';
import { ParamLimits } from './param-rules.js';

/*
 * Request DTOs of the priced routes. All values arrive as strings (spec §4); each decorator's message
 * names the parameter, because the 400's message must. Validation stops at the first failure of a
 * property, and decorators apply bottom-up: the first check is the one written nearest the property.
 */

@ValidatorConstraint({ name: 'isoCountry' })
class IsIsoCountry implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return typeof value === 'string' && ISO_COUNTRY_CODES.has(value.toLowerCase());
  }
  defaultMessage(): string {
    return 'country must be an ISO 3166-1 alpha-2 country code such as us';
  }
}

const maxPage = (args?: ValidationArguments): number => (args?.constraints[0] as number | undefined) ?? 1;

@ValidatorConstraint({ name: 'pageInRange' })
class IsPageInRange implements ValidatorConstraintInterface {
  validate(value: unknown, args?: ValidationArguments): boolean {
    return typeof value === 'string' && /^[1-9]\d{0,2}$/.test(value) && Number(value) <= maxPage(args);
  }
  defaultMessage(args?: ValidationArguments): string {
    return `page must be an integer from 1 to ${maxPage(args)}`;
  }
}

@ValidatorConstraint({ name: 'notBlank' })
class IsNotBlank implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return typeof value === 'string' && value.trim().length > 0;
  }
  defaultMessage(): string {
    return 'term must not be empty';
  }
}

const COUNTRY = [IsOptional(), Validate(IsIsoCountry)];
const LANG = [
  IsOptional(),
  MaxLength(ParamLimits.langMaxLength, { message: `lang must be at most ${ParamLimits.langMaxLength} characters` }),
  Matches(ParamLimits.langPattern, { message: 'lang must be a language tag such as en-us' }),
];

/** Applies shared decorator lists; here the list order is the check order. */
function apply(decorators: PropertyDecorator[]): PropertyDecorator {
  return (target, key) => decorators.forEach((decorate) => decorate(target, key));
}

export class SearchQueryDto {
  @Validate(IsNotBlank)
  @MaxLength(ParamLimits.termMaxLength, { message: `term must be at most ${ParamLimits.termMaxLength} characters` })
  @IsNotEmpty({ message: 'term is required' })
  term!: string;

  @IsOptional()
  @Validate(IsPageInRange, [ParamLimits.searchMaxPage])
  page?: string;

  @apply(COUNTRY) country?: string;
  @apply(LANG) lang?: string;
}

export class LookupQueryDto {
  @apply(COUNTRY) country?: string;
  @apply(LANG) lang?: string;
}

export class ReviewsQueryDto {
  @IsOptional()
  @Validate(IsPageInRange, [ParamLimits.reviewsMaxPage])
  page?: string;

  @apply(COUNTRY) country?: string;

  @IsOptional()
  @IsIn(ParamLimits.sortValues, { message: `sort must be one of: ${ParamLimits.sortValues.join(', ')}` })
  sort?: string;
}

export class NoQueryDto {}

export class AppIdParamDto {
  @Matches(ParamLimits.bundleIdentifierPattern, {
    message: 'appId must be a numeric App Store id or a bundle identifier such as com.example.app',
  })
  @MaxLength(ParamLimits.idMaxLength, { message: `appId must be at most ${ParamLimits.idMaxLength} characters` })
  @IsNotEmpty({ message: 'appId is required' })
  appId!: string;
}

export class BundleIdParamDto {
  @Matches(ParamLimits.numericIdPattern, { message: 'bundleId must be a numeric App Store bundle id' })
  @MaxLength(19, { message: 'bundleId must be at most 19 digits' })
  @IsNotEmpty({ message: 'bundleId is required' })
  bundleId!: string;
}

export class DeveloperIdParamDto {
  @Matches(ParamLimits.numericIdPattern, { message: 'developerId must be a numeric App Store developer id' })
  @MaxLength(19, { message: 'developerId must be at most 19 digits' })
  @IsNotEmpty({ message: 'developerId is required' })
  developerId!: string;
}
