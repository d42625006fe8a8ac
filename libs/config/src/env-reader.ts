/**
 * Reads settings from the environment once, at start-up. Every setting has a safe local default;
 * every problem is collected and reported together, so a misconfigured deployment fails at boot with
 * one clear message instead of at the first request.
 */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

export class EnvReader {
  private readonly problems: string[] = [];

  constructor(private readonly env: Env = process.env) {}

  private raw(name: string): string | undefined {
    const value = this.env[name];
    return value === undefined || value.trim() === '' ? undefined : value.trim();
  }

  string(name: string, fallback: string): string {
    return this.raw(name) ?? fallback;
  }

  optionalString(name: string): string | undefined {
    return this.raw(name);
  }

  int(name: string, fallback: number, range: { min?: number; max?: number } = {}): number {
    const text = this.raw(name);
    if (text === undefined) return fallback;
    const value = /^-?\d+$/.test(text) ? Number.parseInt(text, 10) : Number.NaN;
    const { min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER } = range;
    if (!Number.isSafeInteger(value) || value < min || value > max) {
      this.problems.push(`${name} must be an integer from ${min} to ${max}, got ${JSON.stringify(text)}`);
      return fallback;
    }
    return value;
  }

  bool(name: string, fallback: boolean): boolean {
    const text = this.raw(name)?.toLowerCase();
    if (text === undefined) return fallback;
    if (['1', 'true', 'yes', 'on'].includes(text)) return true;
    if (['0', 'false', 'no', 'off'].includes(text)) return false;
    this.problems.push(`${name} must be true or false, got ${JSON.stringify(text)}`);
    return fallback;
  }

  url(name: string, fallback: string, protocols: string[] = ['http:', 'https:']): string {
    const text = this.raw(name) ?? fallback;
    try {
      const parsed = new URL(text);
      if (!protocols.includes(parsed.protocol)) throw new Error('protocol');
      return text.replace(/\/+$/, '');
    } catch {
      this.problems.push(`${name} must be a ${protocols.join(' or ')} URL, got ${JSON.stringify(text)}`);
      return fallback;
    }
  }

  oneOf<T extends string>(name: string, fallback: T, allowed: readonly T[]): T {
    const text = this.raw(name);
    if (text === undefined) return fallback;
    if (!(allowed as readonly string[]).includes(text)) {
      this.problems.push(`${name} must be one of ${allowed.join(', ')}, got ${JSON.stringify(text)}`);
      return fallback;
    }
    return text as T;
  }

  /** Records a problem found by a cross-field check. */
  fail(problem: string): void {
    this.problems.push(problem);
  }

  /** Throws {@link ConfigError} listing every problem found so far. */
  done(): void {
    if (this.problems.length > 0) throw new ConfigError([...this.problems]);
  }
}

/** Builds a typed config with `build`, throwing one {@link ConfigError} that lists every problem. */
export function readConfig<T>(build: (env: EnvReader) => T, env: Env = process.env): T {
  const reader = new EnvReader(env);
  const config = build(reader);
  reader.done();
  return config;
}
