import { IsIn, IsNotEmpty, IsOptional, Matches, MaxLength, Validate } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { IsIsoCountry, IsNotBlank, IsPageInRange } from './constraints.js';
import { ParamDefaults, ParamDescriptions, ParamLimits } from './param-rules.js';

/*
 * Request DTOs of the priced routes: the one source of every parameter rule. validateRouteInput runs
 * them with class-validator, and the JSON Schemas of OpenAPI, the MCP tools and the x402 bazaar are
 * generated from their metadata (param-schemas.ts); `@JSONSchema` adds what validation does not use
 * (description, default). All values arrive as strings (spec §4); each decorator's message names the
 * parameter, because the 400's message must. Validation stops at the first failure of a property, and
 * decorators apply bottom-up: the first check is the one written nearest the property.
 */

/** A property's description and, for an optional one, the default `toCatalogQuery` applies. */
const doc = (description: string, defaultValue?: string | number): PropertyDecorator =>
  JSONSchema(
    defaultValue === undefined ? { description } : { description, default: defaultValue },
  ) as PropertyDecorator;

const COUNTRY = [doc(ParamDescriptions.country, ParamDefaults.country), IsOptional(), Validate(IsIsoCountry)];
const LANG = [
  doc(ParamDescriptions.lang),
  IsOptional(),
  MaxLength(ParamLimits.langMaxLength, { message: `lang must be at most ${ParamLimits.langMaxLength} characters` }),
  Matches(ParamLimits.langPattern, { message: 'lang must be a language tag such as en-us' }),
];

const TERM = (description: string) => [
  IsNotEmpty({ message: 'term is required' }),
  MaxLength(ParamLimits.termMaxLength, { message: `term must be at most ${ParamLimits.termMaxLength} characters` }),
  Validate(IsNotBlank),
  doc(description),
];

/** Applies shared decorator lists; here the list order is the check order. */
function apply(decorators: PropertyDecorator[]): PropertyDecorator {
  return (target, key) => decorators.forEach((decorate) => decorate(target, key));
}

export class SearchQueryDto {
  @apply(TERM(ParamDescriptions.term)) term!: string;

  @doc(ParamDescriptions.searchPage, ParamDefaults.page)
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

const REVIEWS_PAGE = [
  doc(ParamDescriptions.reviewsPage, ParamDefaults.page),
  IsOptional(),
  Validate(IsPageInRange, [ParamLimits.reviewsMaxPage]),
];
const SORT = [
  doc(ParamDescriptions.sort, ParamDefaults.sort),
  IsOptional(),
  IsIn(ParamLimits.sortValues, { message: `sort must be one of: ${ParamLimits.sortValues.join(', ')}` }),
];

export class ReviewsQueryDto {
  @apply(REVIEWS_PAGE) page?: string;
  @apply(COUNTRY) country?: string;
  @apply(SORT) sort?: string;
}

/** Google Play's reviews: the App Store's paging and sort, in a language (Google Play asks reviews in one). */
export class PlayReviewsQueryDto {
  @apply(REVIEWS_PAGE) page?: string;
  @apply(COUNTRY) country?: string;
  @apply(SORT) sort?: string;
  @apply(LANG) lang?: string;
}

export class NoQueryDto {}

export class CountryQueryDto {
  @apply(COUNTRY) country?: string;
}

export class ChartQueryDto {
  @apply(COUNTRY) country?: string;

  @doc(ParamDescriptions.genre)
  @IsOptional()
  @IsIn(ParamLimits.genreValues, { message: 'genre must be an App Store genre id such as 6014 (Games)' })
  genre?: string;

  @doc(ParamDescriptions.chartPage, ParamDefaults.page)
  @IsOptional()
  @Validate(IsPageInRange, [ParamLimits.chartMaxPage])
  page?: string;
}

export class SuggestionsQueryDto {
  @apply(TERM(ParamDescriptions.prefix)) term!: string;
  @apply(COUNTRY) country?: string;
}

export class ChartParamDto {
  @doc(ParamDescriptions.chart)
  @IsIn(ParamLimits.chartValues, { message: `chart must be one of: ${ParamLimits.chartValues.join(', ')}` })
  @IsNotEmpty({ message: 'chart is required' })
  chart!: string;
}

export class AppIdParamDto {
  @doc(ParamDescriptions.appId)
  @Matches(ParamLimits.bundleIdentifierPattern, {
    message: 'appId must be a numeric App Store id or a bundle identifier such as com.example.app',
  })
  @MaxLength(ParamLimits.idMaxLength, { message: `appId must be at most ${ParamLimits.idMaxLength} characters` })
  @IsNotEmpty({ message: 'appId is required' })
  appId!: string;
}

export class BundleIdParamDto {
  @doc(ParamDescriptions.bundleId)
  @Matches(ParamLimits.numericIdPattern, { message: 'bundleId must be a numeric App Store bundle id' })
  @MaxLength(ParamLimits.numericIdMaxDigits, {
    message: `bundleId must be at most ${ParamLimits.numericIdMaxDigits} digits`,
  })
  @IsNotEmpty({ message: 'bundleId is required' })
  bundleId!: string;
}

export class DeveloperIdParamDto {
  @doc(ParamDescriptions.developerId)
  @Matches(ParamLimits.numericIdPattern, { message: 'developerId must be a numeric App Store developer id' })
  @MaxLength(ParamLimits.numericIdMaxDigits, {
    message: `developerId must be at most ${ParamLimits.numericIdMaxDigits} digits`,
  })
  @IsNotEmpty({ message: 'developerId is required' })
  developerId!: string;
}

/** Google Play's app: its package name. */
export class PlayAppIdParamDto {
  @doc(ParamDescriptions.playAppId)
  @Matches(ParamLimits.playPackagePattern, {
    message: 'appId must be an Android package name such as com.example.app',
  })
  @MaxLength(ParamLimits.playPackageMaxLength, {
    message: `appId must be at most ${ParamLimits.playPackageMaxLength} characters`,
  })
  @IsNotEmpty({ message: 'appId is required' })
  appId!: string;
}

/** Google Play's developer: the numeric id of its page, or its name as its pages write it. */
export class PlayDeveloperIdParamDto {
  @doc(ParamDescriptions.playDeveloperId)
  @Matches(ParamLimits.playDeveloperIdPattern, {
    message: `developerId must be a numeric Google Play developer id of at most ${ParamLimits.playNumericIdMaxDigits} digits, or a developer name`,
  })
  @MaxLength(ParamLimits.playDeveloperNameMaxLength, {
    message: `developerId must be at most ${ParamLimits.playDeveloperNameMaxLength} characters`,
  })
  @IsNotEmpty({ message: 'developerId is required' })
  developerId!: string;
}

export class PlayDeveloperQueryDto {
  @apply(COUNTRY) country?: string;
}
