import { ErrorCode } from '@appcat/contracts';
import { WireException } from '@appcat/microservice';
import type { UpstreamResponse } from './upstream-http-client.js';

/**
 * Upstream failures as typed wire errors. Messages name the cause and the host, never a URL's path or
 * query, a header or a token.
 */

const NETWORK_CAUSES: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host not found',
  ECONNRESET: 'connection reset',
  EPIPE: 'connection reset',
  UND_ERR_SOCKET: 'connection reset',
  ETIMEDOUT: 'connection timed out',
  UND_ERR_CONNECT_TIMEOUT: 'connection timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
};

function errorCode(error: unknown): string | undefined {
  for (let current: unknown = error, depth = 0; current && depth < 4; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && code in NETWORK_CAUSES) return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

export function upstreamNetworkFailure(error: unknown, host: string, timeoutMs: number): WireException {
  if (error instanceof WireException) return error;
  const name = (error as { name?: unknown } | null)?.name;
  if (name === 'TimeoutError' || name === 'AbortError') {
    return new WireException(ErrorCode.UpstreamTimeout, `upstream store timed out after ${timeoutMs} ms (${host})`);
  }
  const code = errorCode(error);
  return new WireException(
    ErrorCode.UpstreamUnreachable,
    `upstream store unreachable: ${code ? NETWORK_CAUSES[code] : 'network error'} (${host})`,
  );
}

/** 429, and Apple's 403 with an empty body, mean "slow down", not "forbidden". */
export function throttled(response: UpstreamResponse, host: string): WireException | undefined {
  if (response.status === 429) {
    const retryAfter = response.headers.get('retry-after');
    const hint = retryAfter && /^\d{1,6}$/.test(retryAfter.trim()) ? `, retry after ${retryAfter.trim()} s` : '';
    return new WireException(
      ErrorCode.UpstreamThrottled,
      `upstream store throttled the request: HTTP 429${hint} (${host})`,
    );
  }
  if (response.status === 403 && response.body.trim() === '') {
    return new WireException(
      ErrorCode.UpstreamThrottled,
      `upstream store throttled the request: HTTP 403 with an empty body (${host})`,
    );
  }
  return undefined;
}

export function httpError(response: UpstreamResponse, host: string): WireException {
  return new WireException(ErrorCode.UpstreamHttpError, `upstream store answered HTTP ${response.status} (${host})`);
}

export function badResponse(what: string, host: string): WireException {
  return new WireException(ErrorCode.UpstreamBadResponse, `upstream store answered ${what} (${host})`);
}

const REPORTED_ERROR = 'an error: ';

/** The upstream's own error answer (Apple's `{errorMessage}`): readable, so not drift. */
export function upstreamReportedError(text: string, host: string): WireException {
  return badResponse(`${REPORTED_ERROR}${quoteUpstreamText(text)}`, host);
}

/** The upstream's own error answer about the request (an invalid `lang`): no other source would take it either. */
export function isUpstreamReportedError(error: unknown): error is WireException {
  return (
    error instanceof WireException &&
    error.code === ErrorCode.UpstreamBadResponse &&
    error.message.startsWith(`upstream store answered ${REPORTED_ERROR}`)
  );
}

/** An answer we could not read (not the upstream's own error message): a sign the upstream's shape drifted. */
export function isUnreadableAnswer(error: unknown): error is WireException {
  return (
    error instanceof WireException &&
    error.code === ErrorCode.UpstreamBadResponse &&
    !error.message.startsWith(`upstream store answered ${REPORTED_ERROR}`)
  );
}

/** Throws the typed failure for a throttled or otherwise non-2xx answer. */
export function expectSuccess(response: UpstreamResponse, host: string): void {
  const slowDown = throttled(response, host);
  if (slowDown) throw slowDown;
  if (response.status < 200 || response.status > 299) throw httpError(response, host);
}

export function parseJsonBody(response: UpstreamResponse, host: string): unknown {
  try {
    return JSON.parse(response.body) as unknown;
  } catch {
    throw badResponse('a body that is not JSON', host);
  }
}

/** Apple's own error text is safe to pass on, once stripped of control characters and cut short. */
export function quoteUpstreamText(text: string): string {
  const clean = text.replace(/\p{Cc}+/gu, ' ').trim();
  return clean.length > 120 ? `${clean.slice(0, 117)}...` : clean;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const UPSTREAM_FAILURES: ReadonlySet<string> = new Set([
  ErrorCode.UpstreamTimeout,
  ErrorCode.UpstreamUnreachable,
  ErrorCode.UpstreamThrottled,
  ErrorCode.UpstreamHttpError,
  ErrorCode.UpstreamBadResponse,
]);

/** The upstream (or our guard in front of it) failed: stale data may stand in for the answer. */
export function isUpstreamFailure(error: unknown): error is WireException {
  return error instanceof WireException && UPSTREAM_FAILURES.has(error.code);
}
