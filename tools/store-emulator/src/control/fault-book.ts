import type { EmulatorRequest, EmulatorResponse } from '../http.js';
import { type Endpoint, endpointOf, isEndpoint } from './endpoints.js';
import type { RequestFault } from './request-fault.js';

/** Which requests a fault applies to; every given field must match. None given: every request. */
export interface FaultMatch {
  /** Path prefix, e.g. "/lookup" or "/v1/". */
  path?: string;
  /** Regular expression tested against the path. */
  pathPattern?: string;
  endpoint?: Endpoint;
  /** Query parameters that must have these exact values. */
  query?: Record<string, string>;
}

/**
 * A fault as tests describe it, in-process or over `POST /__emulator/faults`. Without `status`,
 * `malformed` or `reset`, the real answer is sent (after `delayMs`).
 */
export interface FaultSpec {
  match?: FaultMatch;
  /** Answer this status instead; the body is empty unless `body` is given (403 + empty body is Apple's throttling). */
  status?: number;
  body?: string;
  headers?: Record<string, string>;
  /** Seconds, sent as Retry-After. */
  retryAfter?: number;
  delayMs?: number;
  /** HTTP 200 with a truncated body of the endpoint's content type. */
  malformed?: boolean;
  /** Drop the connection without answering. */
  reset?: boolean;
  /** Applies to the next `count` matching requests, then expires. Absent: until cleared. */
  count?: number;
}

export interface ActiveFault extends FaultSpec {
  id: number;
  /** Requests this fault has answered. */
  applied: number;
}

const MALFORMED: Partial<Record<Endpoint, EmulatorResponse>> = {
  search: {
    status: 200,
    headers: { 'content-type': 'text/javascript; charset=utf-8' },
    body: '\n\n\n{"resultCount":3,"results":[{"wrapperType":"soft',
  },
  lookup: {
    status: 200,
    headers: { 'content-type': 'text/javascript; charset=utf-8' },
    body: '\n\n\n{"resultCount":1,"results":[{"wrapperType":"soft',
  },
  reviews: {
    status: 200,
    headers: { 'content-type': 'application/atom+xml; charset=UTF-8' },
    body: '<?xml version="1.0" encoding="UTF-8"?><feed><entry><id>1',
  },
  page: {
    status: 200,
    headers: { 'content-type': 'text/html; charset=utf-8' },
    body: '<html><head><title>Maintenance</title></head><body></body></html>',
  },
};
const MALFORMED_JSON: EmulatorResponse = {
  status: 200,
  headers: { 'content-type': 'application/json; charset=utf-8' },
  body: '{"data":[{"id":"1","type":"ap',
};

export class FaultSpecError extends Error {}

function check(condition: boolean, problem: string): void {
  if (!condition) throw new FaultSpecError(problem);
}

const isRecordOf = (value: unknown, type: string) =>
  typeof value === 'object' &&
  value !== null &&
  !Array.isArray(value) &&
  Object.values(value).every((v) => typeof v === type);

/** Validates a fault received as JSON, so a typo fails the test that sent it instead of matching nothing. */
export function parseFaultSpec(value: unknown): FaultSpec {
  check(typeof value === 'object' && value !== null && !Array.isArray(value), 'a fault is a JSON object');
  const spec = value as Record<string, unknown>;
  const known = new Set(['match', 'status', 'body', 'headers', 'retryAfter', 'delayMs', 'malformed', 'reset', 'count']);
  for (const key of Object.keys(spec)) check(known.has(key), `unknown fault field "${key}"`);
  if (spec.match !== undefined) {
    check(typeof spec.match === 'object' && spec.match !== null, 'match is an object');
    const match = spec.match as Record<string, unknown>;
    for (const key of Object.keys(match))
      check(['path', 'pathPattern', 'endpoint', 'query'].includes(key), `unknown match field "${key}"`);
    check(match.path === undefined || typeof match.path === 'string', 'match.path is a string');
    check(match.pathPattern === undefined || typeof match.pathPattern === 'string', 'match.pathPattern is a string');
    if (typeof match.pathPattern === 'string') new RegExp(match.pathPattern);
    check(match.endpoint === undefined || isEndpoint(match.endpoint), 'match.endpoint is an endpoint name');
    check(match.query === undefined || isRecordOf(match.query, 'string'), 'match.query maps names to strings');
  }
  check(
    spec.status === undefined ||
      (Number.isInteger(spec.status) && (spec.status as number) >= 100 && (spec.status as number) <= 599),
    'status is an HTTP status',
  );
  check(spec.body === undefined || typeof spec.body === 'string', 'body is a string');
  check(spec.headers === undefined || isRecordOf(spec.headers, 'string'), 'headers maps names to strings');
  for (const key of ['retryAfter', 'delayMs', 'count'] as const) {
    check(
      spec[key] === undefined || (Number.isInteger(spec[key]) && (spec[key] as number) >= 0),
      `${key} is a whole number`,
    );
  }
  for (const key of ['malformed', 'reset'] as const)
    check(spec[key] === undefined || typeof spec[key] === 'boolean', `${key} is true or false`);
  return spec as FaultSpec;
}

function matches(match: FaultMatch | undefined, request: EmulatorRequest): boolean {
  if (!match) return true;
  if (match.path !== undefined && !request.path.startsWith(match.path)) return false;
  if (match.pathPattern !== undefined && !new RegExp(match.pathPattern).test(request.path)) return false;
  if (match.endpoint !== undefined && endpointOf(request.path) !== match.endpoint) return false;
  for (const [name, value] of Object.entries(match.query ?? {})) if (request.query.get(name) !== value) return false;
  return true;
}

function toRequestFault(fault: FaultSpec, request: EmulatorRequest): RequestFault {
  const result: RequestFault = { delayMs: fault.delayMs, destroy: fault.reset };
  if (fault.malformed) {
    result.response = MALFORMED[endpointOf(request.path)] ?? MALFORMED_JSON;
  } else if (fault.status !== undefined) {
    const headers = { ...fault.headers };
    if (fault.retryAfter !== undefined) headers['retry-after'] = String(fault.retryAfter);
    result.response = { status: fault.status, headers, body: fault.body ?? '' };
  }
  return result;
}

/**
 * Faults injected by tests, in-process or from another process over the control API. The oldest
 * matching fault answers; a counted fault expires after answering `count` requests.
 */
export class FaultBook {
  private faults: ActiveFault[] = [];
  private nextId = 1;

  add(spec: FaultSpec): ActiveFault {
    const fault: ActiveFault = { ...spec, id: this.nextId++, applied: 0 };
    if (fault.count !== 0) this.faults.push(fault);
    return fault;
  }

  remove(id: number): boolean {
    const before = this.faults.length;
    this.faults = this.faults.filter((f) => f.id !== id);
    return this.faults.length < before;
  }

  clear(): void {
    this.faults = [];
  }

  list(): ActiveFault[] {
    return this.faults.map((f) => ({ ...f }));
  }

  /** The fault for this request, if any, counting it against the fault's `count`. */
  take(request: EmulatorRequest): RequestFault | undefined {
    const fault = this.faults.find((f) => matches(f.match, request));
    if (!fault) return undefined;
    fault.applied++;
    if (fault.count !== undefined && fault.applied >= fault.count) this.remove(fault.id);
    return toRequestFault(fault, request);
  }
}
