import type { RefreshJob } from './refresh-queue.js';
import type { Freshness, ResourceRequest } from './resource-store.js';

type JobValue = RefreshJob['args'][number];

/** One argument of a resource as a refresh job carries it: how it is written, and read back (undefined: unfit). */
export interface ArgField<T> {
  encode(value: T): JobValue;
  decode(value: unknown): { ok: true; value: T } | undefined;
}

const ok = <T>(value: T) => ({ ok: true as const, value });

/** A non-empty string. */
export const text: ArgField<string> = {
  encode: (value) => value,
  decode: (value) => (typeof value === 'string' && value !== '' ? ok(value) : undefined),
};

/** Any string, the empty one included (a search term). */
export const anyText: ArgField<string> = {
  encode: (value) => value,
  decode: (value) => (typeof value === 'string' ? ok(value) : undefined),
};

/** A string or nothing (written as null): a language. */
export const optionalText: ArgField<string | undefined> = {
  encode: (value) => value ?? null,
  decode: (value) =>
    typeof value === 'string' ? ok(value) : value === null || value === undefined ? ok(undefined) : undefined,
};

export const integer: ArgField<number> = {
  encode: (value) => value,
  decode: (value) => (typeof value === 'number' && Number.isInteger(value) ? ok(value) : undefined),
};

export function oneOf<T extends string>(...choices: readonly T[]): ArgField<T> {
  return {
    encode: (value) => value,
    decode: (value) => (choices.includes(value as T) ? ok(value as T) : undefined),
  };
}

type Fields<A> = { [K in keyof A]: ArgField<A[K]> };

/**
 * How a resource's arguments travel in a refresh job: an array in the order the fields are listed
 * (the order queued jobs already use), read back field by field, so no caller indexes it.
 */
export class ArgsCodec<A extends object> {
  private readonly names: (keyof A)[];

  constructor(private readonly fields: Fields<A>) {
    this.names = Object.keys(fields) as (keyof A)[];
  }

  encode(args: A): JobValue[] {
    return this.names.map((name) => this.fields[name].encode(args[name]));
  }

  decode(raw: readonly unknown[]): A | undefined {
    const args = {} as A;
    for (const [index, name] of this.names.entries()) {
      const read = this.fields[name].decode(raw[index]);
      if (!read) return undefined;
      args[name] = read.value;
    }
    return args;
  }
}

export interface ResourceKindSpec<A extends object, T> {
  /** Names the resource in its cache key and in its refresh jobs. */
  kind: string;
  /**
   * The upstream hosts its sources reach, in the order they are tried. The first pays for a refresh
   * (where the load goes when all is well); a miss is refused unserved only when every one is unavailable.
   */
  upstreams: readonly [string, ...string[]];
  args: ArgsCodec<A>;
  key(args: A): string;
  freshness(args: A): Freshness;
  /** Loads of one group share one batched call; absent: each load is its own call. */
  group?(args: A): string;
  load(args: A, noteSource?: (name: string) => void): Promise<T | undefined>;
}

/**
 * One kind of upstream resource, described once: its key, freshness, loader and refresh-job codec.
 * `request` is what a route reads; `fromJob` rebuilds the same request from a job any replica queued.
 */
export class ResourceKind<A extends object, T> {
  constructor(readonly spec: ResourceKindSpec<A, T>) {}

  get kind(): string {
    return this.spec.kind;
  }

  request(args: A): ResourceRequest<T> {
    const { spec } = this;
    const group = spec.group?.(args);
    return {
      key: spec.key(args),
      freshness: spec.freshness(args),
      load: (noteSource) => spec.load(args, noteSource),
      refresh: {
        upstream: spec.upstreams[0],
        ...(group === undefined ? {} : { group }),
        kind: spec.kind,
        args: spec.args.encode(args),
      },
    };
  }

  /** The request a job describes; undefined when its arguments do not fit. */
  fromJob(job: RefreshJob): ResourceRequest<T> | undefined {
    const args = this.spec.args.decode(job.args);
    return args === undefined ? undefined : this.request(args);
  }
}

/** What {@link ResourceKinds} needs of a kind, whatever its arguments. */
interface KnownKind {
  readonly kind: string;
  readonly spec: { readonly upstreams: readonly string[] };
  fromJob(job: RefreshJob): ResourceRequest<unknown> | undefined;
}

/** The kinds of one store, by name: rebuilds any of their jobs and tells which upstream a key is loaded from. */
export class ResourceKinds {
  private readonly byKind: Map<string, KnownKind>;

  constructor(
    private readonly store: string,
    kinds: readonly KnownKind[],
  ) {
    this.byKind = new Map(kinds.map((k) => [k.kind, k]));
  }

  fromJob(job: RefreshJob): ResourceRequest<unknown> | undefined {
    return this.byKind.get(job.kind)?.fromJob(job);
  }

  /** The upstreams a cached resource (`<store>:<kind>:…`) can be loaded from, in the order tried. */
  upstreamsOf(resourceKey: string): readonly string[] | undefined {
    const [store, kind] = resourceKey.split(':', 2);
    return store === this.store ? this.byKind.get(kind)?.spec.upstreams : undefined;
  }
}
