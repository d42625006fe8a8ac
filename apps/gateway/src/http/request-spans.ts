import {
  type Context,
  contextFromHeaders,
  contextWithSpan,
  OUTCOME,
  type Span,
  SpanKind,
  SpanStatusCode,
  startSpan,
} from '@appcat/ops';
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler, RouteOptions } from 'fastify';

/** Probes and scrapes are not traced: each would be a trace of its own, every few seconds. */
const UNTRACED_ROUTES = new Set(['/healthz', '/readyz', '/metrics']);

/** Each traced request's span and the context it heads, until its answer is sent. */
const traced = new WeakMap<FastifyRequest, { span: Span; context: Context }>();

/**
 * The trace context of `request`'s handling (its span's), undefined when it is not traced: the parent
 * the gateway gives its spans and requests explicitly (no context crosses an await: libs/ops tracing.ts).
 */
export function requestTrace(request: FastifyRequest): Context | undefined {
  return traced.get(request)?.context;
}

/**
 * The span of each HTTP request, named by its route (`GET /api/apps/:appId`) and carrying the request
 * id, which is where the trace meets the request's log lines; its parent is the caller's `traceparent`,
 * if any, and the sampler decides. Only a sampled request gets a span, which its handling reads with
 * `requestTrace`: an unsampled one costs the sampler's decision and nothing else.
 *
 * Our own hook rather than @opentelemetry/instrumentation-http's server side, which on every request
 * (sampled or not) computed a dozen attributes, entered a context and bound the request's and
 * response's listeners to it: on the bench it cost more than the rest of tracing together. A hook of
 * each route's own, added as the route is (so call before any route is added): it knows its route,
 * where a hook of the server's would read it off the request on every call. A request no route
 * matches (a 404) is not traced. Registered only with tracing on.
 */
export function traceRequests(fastify: FastifyInstance): void {
  fastify.addHook('onRoute', (route) => {
    if (UNTRACED_ROUTES.has(route.url)) return;
    // A route of one method knows its spans' name; one of several names each request's by its method.
    const hook = traceRoute(route.url, typeof route.method === 'string' ? `${route.method} ${route.url}` : undefined);
    route.onRequest = route.onRequest === undefined ? hook : [route.onRequest, hook].flat();
  });
}

/** The onRequest hook of the route `url`: its requests' spans, named `name` when the route knows it. */
function traceRoute(url: RouteOptions['url'], name: string | undefined): onRequestHookHandler {
  return (request, reply, done) => {
    const parent = contextFromHeaders((header) => headerValue(request.headers[header]));
    const span = startSpan(
      name ?? `${request.method} ${url}`,
      {
        'http.request.method': request.method,
        'http.route': url,
        'url.scheme': request.protocol,
        'appcat.request_id': request.id,
      },
      { kind: SpanKind.SERVER, parent, root: true },
    );
    if (span !== undefined) traceUntilClosed(request, reply, span, parent);
    done();
  };
}

function traceUntilClosed(request: FastifyRequest, reply: FastifyReply, span: Span, parent: Context): void {
  traced.set(request, { span, context: contextWithSpan(span, parent) });
  // The response closes once it has been sent, or when its caller went before the answer: then the
  // span ends with the status it would have had. A listener on sampled requests only, where
  // Fastify's onResponse and onRequestAbort hooks would run on every request.
  reply.raw.once('close', () => {
    traced.delete(request);
    end(span, reply.raw.writableFinished ? reply.statusCode : 499);
  });
}

function end(span: Span, status: number): void {
  span.setAttributes({ 'http.response.status_code': status, [OUTCOME]: status < 400 ? 'ok' : String(status) });
  // As OpenTelemetry's HTTP conventions have it: a server span is an error only when the server failed.
  if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
  span.end();
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
