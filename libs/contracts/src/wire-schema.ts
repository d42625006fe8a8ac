import { ErrorCode, type WireError } from './errors.js';
import { parseMicros } from './money.js';

/*
 * A service's reading of a NATS payload: each subject's request has one schema (wire-payloads.ts), and
 * `parseWire(schema)` turns it into the parser its handler calls, which gives the typed value or throws
 * a WirePayloadError naming the field. Written here, a few lines, rather than taken from a validation
 * library: the payloads are small and flat, and libs/contracts stays free of dependencies.
 */

/** A payload that does not fit its subject's schema: crosses NATS as INVALID_ARGUMENT, naming the field. */
export class WirePayloadError extends Error implements WireError {
  readonly code = ErrorCode.InvalidArgument;
  constructor(message: string) {
    super(message);
    this.name = 'WirePayloadError';
  }
}

/** Reads `value` found at `path` ("keyHash", "query.term"); throws a WirePayloadError. */
export interface WireSchema<T> {
  read(value: unknown, path: string): T;
}

export type WireValue<S> = S extends WireSchema<infer T> ? T : never;

const refuse = (path: string, rule: string): never => {
  throw new WirePayloadError(`${path || 'payload'} ${rule}`);
};

/** A string, of `minLength` (1 unless told) to `maxLength` characters, matching `pattern`; `rule` says how when it does not. */
export function text(options: {
  maxLength: number;
  minLength?: number;
  pattern?: RegExp;
  rule?: string;
}): WireSchema<string> {
  const { maxLength, minLength = 1, pattern } = options;
  const rule = options.rule ?? `must be a string of ${minLength} to ${maxLength} characters`;
  return {
    read: (value, path) =>
      typeof value === 'string' &&
      value.length >= minLength &&
      value.length <= maxLength &&
      (pattern === undefined || pattern.test(value))
        ? value
        : refuse(path, rule),
  };
}

/** An integer number from `min` to `max`. */
export function integer(min: number, max: number): WireSchema<number> {
  return {
    read: (value, path) =>
      Number.isInteger(value) && (value as number) >= min && (value as number) <= max
        ? (value as number)
        : refuse(path, `must be an integer from ${min} to ${max}`),
  };
}

/** A micro-USD integer string ("3000") from `min` to `max`, read as a bigint. */
export function micros(min: bigint, max: bigint): WireSchema<bigint> {
  return {
    read: (value, path) => {
      let amount: bigint;
      try {
        amount = parseMicros(value as string);
      } catch {
        return refuse(path, 'must be a micro-USD integer string');
      }
      return amount >= min && amount <= max ? amount : refuse(path, `must be from ${min} to ${max} µUSD`);
    },
  };
}

/** One of `values`. */
export function oneOf<const T extends string>(values: readonly T[]): WireSchema<T> {
  return {
    read: (value, path) =>
      values.includes(value as T) ? (value as T) : refuse(path, `must be one of: ${values.join(', ')}`),
  };
}

/** Absent (undefined or null) reads as undefined; anything else must fit `schema`. */
export function optional<T>(schema: WireSchema<T>): WireSchema<T | undefined> {
  return { read: (value, path) => (value === undefined || value === null ? undefined : schema.read(value, path)) };
}

type Shape = Record<string, WireSchema<unknown>>;
export type ObjectValue<S extends Shape> = { [K in keyof S]: WireValue<S[K]> };

/** An object with `shape`'s fields (others are ignored and left out), each read by its schema, in order. */
export function object<S extends Shape>(shape: S): WireSchema<ObjectValue<S>> {
  const fields = Object.entries(shape);
  return {
    read: (value, path) => {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) return refuse(path, 'must be an object');
      const read: Record<string, unknown> = {};
      for (const [name, schema] of fields) {
        const field = schema.read((value as Record<string, unknown>)[name], path ? `${path}.${name}` : name);
        if (field !== undefined) read[name] = field;
      }
      return read as ObjectValue<S>;
    },
  };
}

/**
 * An object whose `shape` fields are checked and whose other fields are kept as they came: a value
 * payments made and gets back unchanged (an x402 hold's requirement).
 */
export function openObject<S extends Shape>(shape: S): WireSchema<ObjectValue<S> & Record<string, unknown>> {
  const checked = object(shape);
  return { read: (value, path) => ({ ...(value as Record<string, unknown>), ...checked.read(value, path) }) };
}

/** An object told apart by its `tag` field, read by that variant's schema (which repeats the tag). */
export function variants<const Tag extends string, V extends Record<string, WireSchema<unknown>>>(
  tag: Tag,
  byTag: V,
): WireSchema<WireValue<V[keyof V]>> {
  const tags = oneOf(Object.keys(byTag));
  return {
    read: (value, path) => {
      if (typeof value !== 'object' || value === null) return refuse(path, 'must be an object');
      const which = tags.read((value as Record<string, unknown>)[tag], path ? `${path}.${tag}` : tag);
      return byTag[which].read(value, path) as WireValue<V[keyof V]>;
    },
  };
}

/** The parser of one subject's payload: the typed value, or a WirePayloadError naming the field. */
export function parseWire<T>(schema: WireSchema<T>): (payload: unknown) => T {
  return (payload) => schema.read(payload, '');
}
