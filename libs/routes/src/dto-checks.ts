import {
  getMetadataStorage,
  IS_OPTIONAL,
  type MetadataStorage,
  type ValidationArguments,
  ValidationTypes,
  type ValidatorConstraintInterface,
} from 'class-validator';

/*
 * A DTO's class-validator metadata compiled once into plain per-property check lists, run the way
 * `validateSync(instance, { stopAtFirstError: true, forbidUnknownValues: false })` runs them. That
 * call looks the metadata up, filters and groups it, and builds error objects on every call; this
 * does that work once. Only the metadata kinds the DTOs use are understood: anything else throws
 * when the DTO is compiled, at start-up, rather than being skipped.
 */

type ValidationMetadata = ReturnType<MetadataStorage['getTargetValidationMetadatas']>[number];

/** A DTO class: constructed without arguments, its properties then set. */
export type DtoClass = new () => object;

/** One constraint of one decorator on a property. */
interface ConstraintCheck {
  readonly validator: ValidatorConstraintInterface;
  /** The decorator's constraints (`MaxLength(200)` → `[200]`, none for `Validate(Class)`), passed to the validator. */
  readonly constraints: unknown[] | undefined;
  /** The decorator's `message` option; without one, the validator's default message. */
  readonly message: ValidationMetadata['message'] | undefined;
}

/** A property's checks, in the order class-validator runs them (the decorator nearest the property first). */
export interface PropertyChecks {
  readonly name: string;
  /** `@IsOptional()`: a missing (undefined or null) value skips every check. */
  readonly optional: boolean;
  readonly checks: readonly ConstraintCheck[];
}

/** A compiled DTO: its checked properties, in class-validator's property order. */
export interface DtoChecks {
  readonly dto: DtoClass;
  readonly properties: ReadonlyMap<string, PropertyChecks>;
}

/**
 * Compiles `dto`'s validation metadata as registered now (decorators run when the class is defined).
 * Throws for a metadata kind it does not understand: nested, promise, whitelist or is-defined
 * validation, a conditional other than `@IsOptional()`, `each` or `validateIf` options, async
 * constraints, a constraint class without `@ValidatorConstraint`, or a property with a default value.
 * Constraint instances are resolved once, as class-validator's default container keeps one per class.
 */
export function compileDtoChecks(dto: DtoClass): DtoChecks {
  const storage = getMetadataStorage();
  // The arguments validateSync's executor passes without groups or `always`.
  const metadatas = storage.getTargetValidationMetadatas(dto, '', false, false, undefined);
  const grouped = new Map<string, { optional: boolean; checks: ConstraintCheck[] }>();
  const blank = new dto() as Record<string, unknown>;
  for (const metadata of metadatas) {
    const where = `${dto.name}.${metadata.propertyName}`;
    let property = grouped.get(metadata.propertyName);
    if (!property) {
      if (blank[metadata.propertyName] !== undefined)
        throw new Error(`${where} has a default value: the checks see only the value given`);
      property = { optional: false, checks: [] };
      grouped.set(metadata.propertyName, property);
    }
    if (metadata.each) throw new Error(`${where}: the \`each\` validation option is not supported`);
    if (metadata.validateIf) throw new Error(`${where}: the \`validateIf\` validation option is not supported`);
    if (metadata.type === ValidationTypes.CONDITIONAL_VALIDATION && metadata.name === IS_OPTIONAL) {
      property.optional = true;
    } else if (metadata.type === ValidationTypes.CUSTOM_VALIDATION) {
      const constraintClasses = storage.getTargetValidatorConstraints(metadata.constraintCls);
      if (constraintClasses.length === 0)
        throw new Error(`${where}: ${metadata.constraintCls.name} is not a @ValidatorConstraint`);
      for (const constraintClass of constraintClasses) {
        if (constraintClass.async)
          throw new Error(`${where}: async constraint ${constraintClass.name} is not supported`);
        property.checks.push({
          validator: constraintClass.instance,
          constraints: metadata.constraints,
          message: metadata.message,
        });
      }
    } else {
      throw new Error(
        `${where}: validation metadata of type ${metadata.type}${metadata.name ? ` (${metadata.name})` : ''} is not supported`,
      );
    }
  }
  return { dto, properties: new Map([...grouped].map(([name, property]) => [name, { name, ...property }])) };
}

/** A failed check, with the message validateSync puts in the error's `constraints` (which may be undefined). */
export interface CheckFailure {
  message: string | undefined;
}

/**
 * The first check `value` fails, as validateSync with stopAtFirstError reports it, or undefined when
 * every check passes. `object` is the DTO instance holding the value, for the validation arguments.
 * A missing optional value is the caller's to skip.
 */
export function firstFailedCheck(
  dto: DtoChecks,
  property: PropertyChecks,
  value: unknown,
  object: object,
): CheckFailure | undefined {
  for (const check of property.checks) {
    const valid = check.validator.validate(value, validationArguments(dto, property, check, value, object));
    // A promise is what validateSync ignores (async validation is skipped): truthy, so not a failure.
    if (!valid) return { message: failureMessage(check, validationArguments(dto, property, check, value, object)) };
  }
  return undefined;
}

function validationArguments(
  dto: DtoChecks,
  property: PropertyChecks,
  check: ConstraintCheck,
  value: unknown,
  object: object,
): ValidationArguments {
  // `constraints` is typed as an array but, as in validateSync, is undefined for a decorator given none.
  return {
    targetName: dto.dto.name,
    property: property.name,
    object,
    value,
    constraints: check.constraints as unknown[],
  };
}

/** class-validator's message for a failed check: the decorator's message, else the validator's default, with its tokens replaced. */
function failureMessage(check: ConstraintCheck, args: ValidationArguments): string | undefined {
  let message = check.message || '';
  if (!check.message && typeof check.validator.defaultMessage === 'function')
    message = check.validator.defaultMessage(args);
  return replaceMessageSpecialTokens(message, args);
}

/** class-validator's ValidationUtils.replaceMessageSpecialTokens (not part of its public API), step for step. */
function replaceMessageSpecialTokens(
  message: ValidationMetadata['message'],
  args: ValidationArguments,
): string | undefined {
  let text: string | undefined =
    typeof message === 'function' ? message(args) : typeof message === 'string' ? message : undefined;
  // Every token starts with `$`; without one nothing below changes the text.
  if (!text || !text.includes('$')) return text;
  if (Array.isArray(args.constraints)) {
    args.constraints.forEach((constraint: unknown, index) => {
      text = text!.replace(new RegExp(`\\$constraint${index + 1}`, 'g'), constraintToString(constraint));
    });
  }
  const { value } = args;
  if (text && value !== undefined && value !== null && ['string', 'boolean', 'number'].includes(typeof value)) {
    text = text.replace(/\$value/g, String(value));
  }
  if (text) text = text.replace(/\$property/g, args.property);
  if (text) text = text.replace(/\$target/g, args.targetName);
  return text;
}

function constraintToString(constraint: unknown): string {
  if (Array.isArray(constraint)) return constraint.join(', ');
  if (typeof constraint === 'symbol') return `${constraint.description}`;
  return `${constraint}`;
}
