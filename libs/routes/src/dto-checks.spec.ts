import {
  Allow,
  IsDefined,
  IsIn,
  IsOptional,
  Length,
  Matches,
  MaxLength,
  Validate,
  ValidateIf,
  ValidateNested,
  type ValidationArguments,
  ValidatorConstraint,
  type ValidatorConstraintInterface,
  validateSync,
} from 'class-validator';
import fc from 'fast-check';
import { compileDtoChecks, type DtoClass, firstFailedCheck } from './dto-checks.js';

/*
 * The compiler beyond what the route DTOs use today: messages with class-validator's `$` tokens,
 * message functions, default messages, several constraints on a property; each held to validateSync.
 * And what it does not understand, refused when compiled.
 */

@ValidatorConstraint({ name: 'startsWith' })
class StartsWith implements ValidatorConstraintInterface {
  validate(value: unknown, args?: ValidationArguments): boolean {
    return typeof value === 'string' && value.startsWith(String(args?.constraints[0]));
  }
  defaultMessage(args?: ValidationArguments): string {
    return `$property must start with $constraint1 (one of $constraint2), not $value, in $target (${String(args?.value)})`;
  }
}

class TokenDto {
  @MaxLength(3)
  @IsOptional()
  shortDefault?: unknown;

  @Matches(/^x/, { message: '$property of $target was $value, wanted $constraint1 or $constraint2' })
  tokens?: unknown;

  @MaxLength(5, {
    message: (args: ValidationArguments) => `${args.property} (${String(args.value)}) over $constraint1`,
  })
  @Length(2, 10, { message: '' })
  functionAndEmpty?: unknown;

  @Validate(StartsWith, ['a', ['b', 'c']])
  @IsIn(['abc', 'a$&', 'a$1'])
  @IsOptional()
  customDefault?: unknown;
}

const OPTIONS = { stopAtFirstError: true, forbidUnknownValues: false } as const;

/** What validateSync reports for `name` holding `value`: undefined if it passes, else its one constraint message. */
function reference(name: string, value: unknown): { message: string | undefined } | undefined {
  const instance = new TokenDto() as Record<string, unknown>;
  if (value !== undefined) instance[name] = value;
  const error = validateSync(instance, OPTIONS).find((e) => e.property === name);
  return error && { message: Object.values(error.constraints ?? {})[0] };
}

function compiled(name: string, value: unknown): { message: string | undefined } | undefined {
  const checks = compileDtoChecks(TokenDto);
  const property = checks.properties.get(name)!;
  if (property.optional && (value === undefined || value === null)) return undefined;
  const instance = new TokenDto() as Record<string, unknown>;
  if (value !== undefined) instance[name] = value;
  return firstFailedCheck(checks, property, value, instance);
}

describe('compileDtoChecks', () => {
  const value = fc.oneof(
    fc.constantFrom(
      undefined,
      null,
      '',
      'x',
      'xyz',
      'abcd',
      'abc',
      'a$&',
      'a$1',
      '$value',
      '$&$1$$',
      'x'.repeat(12),
      0,
      12345,
      true,
      ['a', 'b'],
    ),
    fc.string({ maxLength: 12 }),
    fc.string({ unit: 'grapheme', maxLength: 12 }),
  );

  it.each(['shortDefault', 'tokens', 'functionAndEmpty', 'customDefault'])(
    '%s: the same verdict and message as validateSync',
    (name) => {
      fc.assert(
        fc.property(value, (v) => {
          expect(compiled(name, v)).toStrictEqual(reference(name, v));
        }),
        { numRuns: 1000 },
      );
    },
  );

  it('keeps the properties in class-validator order and the checks nearest the property first', () => {
    const checks = compileDtoChecks(TokenDto);
    expect([...checks.properties.keys()]).toEqual(['shortDefault', 'tokens', 'functionAndEmpty', 'customDefault']);
    expect(checks.properties.get('customDefault')).toMatchObject({
      optional: true,
      checks: [{ constraints: [['abc', 'a$&', 'a$1']] }, { constraints: ['a', ['b', 'c']] }],
    });
  });

  @ValidatorConstraint({ name: 'later', async: true })
  class Later implements ValidatorConstraintInterface {
    async validate(): Promise<boolean> {
      return false;
    }
  }
  class NotAConstraint implements ValidatorConstraintInterface {
    validate(): boolean {
      return false;
    }
  }
  class Conditional {
    @ValidateIf(() => true) @MaxLength(1) a?: string;
  }
  class Defined {
    @IsDefined() a?: string;
  }
  class Nested {
    @ValidateNested() a?: object;
  }
  class Allowed {
    @Allow() a?: string;
  }
  class Each {
    @MaxLength(1, { each: true }) a?: string[];
  }
  class ValidateIfOption {
    @MaxLength(1, { validateIf: () => true }) a?: string;
  }
  class Async {
    @Validate(Later) a?: string;
  }
  class Undecorated {
    @Validate(NotAConstraint) a?: string;
  }
  class WithDefault {
    @MaxLength(1) a?: string = 'x';
  }

  it.each([
    [Conditional, /Conditional\.a: validation metadata of type conditionalValidation is not supported/],
    [Defined, /Defined\.a: validation metadata of type isDefined/],
    [Nested, /Nested\.a: validation metadata of type nestedValidation/],
    [Allowed, /Allowed\.a: validation metadata of type whitelistValidation/],
    [Each, /Each\.a: the `each` validation option/],
    [ValidateIfOption, /ValidateIfOption\.a: the `validateIf` validation option/],
    [Async, /Async\.a: async constraint later/],
    [Undecorated, /Undecorated\.a: NotAConstraint is not a @ValidatorConstraint/],
    [WithDefault, /WithDefault\.a has a default value/],
  ] as [DtoClass, RegExp][])('refuses %p', (dto, message) => {
    expect(() => compileDtoChecks(dto)).toThrow(message);
  });
});
