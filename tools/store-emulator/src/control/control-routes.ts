import { empty, json, type EmulatorRequest, type EmulatorResponse } from '../http.js';
import type { CatalogueListing } from './catalogue-listing.js';
import type { EndpointStats } from './endpoint-stats.js';
import { type DriftSettings, DriftSpecError, parseDrift } from './drift.js';
import { type FaultBook, FaultSpecError, parseFaultSpec } from './fault-book.js';
import type { EmulatedRateLimit, RateLimitSettings } from './rate-limit.js';

export const CONTROL_PREFIX = '/__emulator/';

export interface ControlPlane {
  stats: EndpointStats;
  faults: FaultBook;
  rateLimit: EmulatedRateLimit;
  listing(): CatalogueListing;
  rotateToken(): string;
  drift(): DriftSettings;
  setDrift(settings: Partial<DriftSettings>): DriftSettings;
}

function parseBody(body: string): unknown {
  try {
    return JSON.parse(body) as unknown;
  } catch {
    throw new FaultSpecError('the body is not JSON');
  }
}

function parseRateLimit(value: unknown): Partial<RateLimitSettings> {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new FaultSpecError('a rate limit is a JSON object');
  const settings: Partial<RateLimitSettings> = {};
  for (const [key, number] of Object.entries(value)) {
    if (key !== 'perMinute' && key !== 'ampPerMinute' && key !== 'windowMs')
      throw new FaultSpecError(`unknown rate limit field "${key}"`);
    if (!Number.isInteger(number) || (number as number) < 0 || (key === 'windowMs' && (number as number) < 1)) {
      throw new FaultSpecError(`${key} is a whole number${key === 'windowMs' ? ' above 0' : ''}`);
    }
    settings[key] = number as number;
  }
  return settings;
}

/**
 * The emulator's control API, for tests and benchmarks in other processes: inject faults, read and
 * reset per-endpoint counters, switch Apple's rate limit on, list the catalogue. Control requests are
 * never counted, faulted or rate limited.
 */
export function answerControl(plane: ControlPlane, request: EmulatorRequest, body: string): EmulatorResponse {
  const path = request.path.slice(CONTROL_PREFIX.length);
  const method = request.method;
  try {
    if (path === 'stats') {
      if (method === 'GET') return json(200, plane.stats.read());
      if (method === 'DELETE') return (plane.stats.reset(), empty(204));
    }
    if (path === 'faults') {
      if (method === 'GET') return json(200, { faults: plane.faults.list() });
      if (method === 'DELETE') return (plane.faults.clear(), empty(204));
      if (method === 'POST') {
        const parsed = parseBody(body);
        const specs = (Array.isArray(parsed) ? parsed : [parsed]).map(parseFaultSpec);
        return json(201, { faults: specs.map((spec) => plane.faults.add(spec)) });
      }
    }
    const faultId = /^faults\/(\d+)$/.exec(path);
    if (faultId && method === 'DELETE')
      return plane.faults.remove(Number(faultId[1])) ? empty(204) : json(404, { error: 'no such fault' });
    if (path === 'rate-limit') {
      if (method === 'GET') return json(200, plane.rateLimit.current());
      if (method === 'PUT') return json(200, plane.rateLimit.configure(parseRateLimit(parseBody(body))));
    }
    if (path === 'catalogue' && method === 'GET') return json(200, plane.listing());
    if (path === 'token' && method === 'POST') return json(200, { token: plane.rotateToken() });
    if (path === 'drift') {
      if (method === 'GET') return json(200, plane.drift());
      if (method === 'PUT') return json(200, plane.setDrift(parseDrift(parseBody(body))));
    }
    return json(404, { error: `no control route ${method} ${request.path}` });
  } catch (error) {
    if (error instanceof FaultSpecError || error instanceof DriftSpecError || error instanceof SyntaxError)
      return json(400, { error: error.message });
    throw error;
  }
}
