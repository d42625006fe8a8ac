import { type Context, GatewayMetrics, traceIds } from '@appcat/ops';
import { HttpException, Injectable, Logger } from '@nestjs/common';
import { ChargeUnsureError, HttpError, Messages } from './http-error.js';

/** How every 5xx of a priced call ends: a failed call is never charged. */
const NOTHING_CHARGED = 'nothing was charged';

/**
 * What the gateway answers for a failure, whatever the surface: HTTP writes it as the envelope (on a
 * reply, or on the socket before there is one), MCP as a tool error or a JSON-RPC error.
 */
export interface ErrorAnswer {
  readonly status: number;
  readonly message: string;
  readonly headers: Readonly<Record<string, string>>;
  /** The stable label the answer is counted under in `appcat_declines_total` (never the free-text message). */
  readonly reason: string;
}

/**
 * The call a failure ended, for its log line: its request id and, when it is traced, its trace context,
 * whose ids the line carries (the gateway passes trace context explicitly: its log lines have no
 * active span to take them from).
 */
export interface FailedCall {
  requestId: string;
  trace?: Context;
}

/** Every failure we did not foresee: a 500 that reveals nothing (the cause is logged, not sent). */
const INTERNAL: ErrorAnswer = { status: 500, message: Messages.internal, headers: {}, reason: 'internal_error' };

/** Node's own refusals, raised before Fastify has a request (the socket's `clientError`). */
const NODE_CLIENT_ERRORS: Readonly<Record<string, ErrorAnswer>> = {
  HPE_HEADER_OVERFLOW: answer(431, Messages.headersTooLarge),
  ERR_HTTP_REQUEST_TIMEOUT: answer(408, Messages.requestTimeout),
};
const MALFORMED_REQUEST = answer(400, Messages.malformedRequest);
const MALFORMED_URL = answer(400, Messages.malformedUrl);
const NOT_FOUND = answer(404, Messages.notFound);

/**
 * The one mapping from anything thrown to its answer: our HttpError as it is; Nest's HttpExceptions
 * (404 for unknown paths, Fastify's 4xx errors that Nest wraps) and Fastify's own 4xx errors with their
 * status and a plain message; Node's HTTP parser errors by code; anything else a 500 that reveals
 * nothing. Pure: `ErrorAnswers.answer` is what surfaces call, to count and log as well.
 */
export function errorAnswer(error: unknown): ErrorAnswer {
  if (error instanceof HttpError) return answer(error.status, error.message, error.headers);
  if (error instanceof HttpException) {
    const status = error.getStatus();
    return status === 404 ? NOT_FOUND : answer(status, plainMessage(error));
  }
  // Fastify's and Node's errors by their code (read from the object: Node's parser errors may come from another realm).
  if (typeof error !== 'object' || error === null) return INTERNAL;
  const { code, name, statusCode, message } = error as {
    code?: unknown;
    name?: unknown;
    statusCode?: unknown;
    message?: unknown;
  };
  if (typeof code !== 'string') return INTERNAL;
  // The router's refusals of a URL it cannot decode (frameworkErrors).
  if (code === 'FST_ERR_BAD_URL' || code === 'FST_ERR_ASYNC_CONSTRAINT') return MALFORMED_URL;
  if (name === 'FastifyError') {
    return typeof statusCode === 'number' && statusCode >= 400 && statusCode < 500 && typeof message === 'string'
      ? answer(statusCode, message.toLowerCase())
      : INTERNAL;
  }
  return NODE_CLIENT_ERRORS[code] ?? (code.startsWith('HPE_') ? MALFORMED_REQUEST : INTERNAL);
}

/** A few stable labels for the declines metric, not the free-text message (which names parameters and amounts). */
export function declineReason(status: number, message: string): string {
  switch (status) {
    case 400:
      return 'invalid_request';
    case 401:
      return 'invalid_key';
    case 402:
      return message === Messages.paymentRequired || message === Messages.topupRequired ? message : 'payment_refused';
    default:
      return status >= 500 ? 'dependency_failed' : `http_${status}`;
  }
}

/**
 * Every surface's way from a failure to its answer (HTTP routes and Nest's filter, Fastify's and Node's
 * refusals, MCP): the answer `errorAnswer` maps, counted in the declines metric; a failure we did not
 * foresee is logged with its stack, since its answer says nothing.
 */
@Injectable()
export class ErrorAnswers {
  private readonly logger = new Logger('Gateway');

  constructor(private readonly metrics: GatewayMetrics) {}

  /**
   * @param context what failed, for the log line of an unforeseen failure (a route id, an MCP tool).
   * @param call the call that failed, when known: the line carries its request id and trace ids.
   */
  answer(error: unknown, context = 'request', call?: FailedCall): ErrorAnswer {
    const answered = errorAnswer(error);
    if (answered === INTERNAL) {
      const msg = `${context} failed: ${(error as Error | undefined)?.stack ?? String(error)}`;
      this.logger.error(call ? { msg, requestId: call.requestId, ...traceIds(call.trace) } : msg);
    }
    this.metrics.declines.inc({ reason: answered.reason });
    return answered;
  }

  /**
   * A priced call's failure: a 5xx (upstream, dependency, internal) ends by saying nothing was charged,
   * since a failed call never is; only a charge whose answer was lost says it may have been made.
   */
  uncharged(error: unknown, context?: string, call?: FailedCall): ErrorAnswer {
    const answered = this.answer(error, context, call);
    if (answered.status < 500 || error instanceof ChargeUnsureError) return answered;
    return { ...answered, message: `${answered.message}; ${NOTHING_CHARGED}` };
  }
}

function answer(status: number, message: string, headers: Readonly<Record<string, string>> = {}): ErrorAnswer {
  return { status, message, headers, reason: declineReason(status, message) };
}

function plainMessage(exception: HttpException): string {
  const response = exception.getResponse();
  const message =
    typeof response === 'object' && response !== null ? (response as { message?: unknown }).message : response;
  return typeof message === 'string' ? message.toLowerCase() : exception.message.toLowerCase();
}
