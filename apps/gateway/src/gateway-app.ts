import { annotateActiveSpan, GatewayMetrics, type ServiceAppOptions, tracingEnabled } from '@appcat/ops';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { GatewayModule } from './app.module.js';
import type { GatewayConfig } from './config.js';
import { EnvelopeExceptionFilter } from './envelope/envelope-exception.filter.js';
import { type ErrorAnswer, ErrorAnswers } from './errors/error-answers.js';
import { fastifyOptions } from './http/fastify-options.js';
import { routeEveryMethod } from './http/http-methods.js';

/** Builds the gateway, initialised but not listening: `app.listen(port, host)` or `app.inject()` next. */
export async function createGatewayApp(
  config: GatewayConfig,
  options: ServiceAppOptions = {},
): Promise<NestFastifyApplication> {
  // Fastify takes its error handlers when it is built, before the module's providers exist; it calls
  // them only while serving, when the app and its ErrorAnswers do.
  const answer = (error: unknown): ErrorAnswer => app.get(ErrorAnswers).answer(error);
  const adapter = new FastifyAdapter(fastifyOptions(config, answer));
  // Before any route is registered: routes may only name methods Fastify knows.
  routeEveryMethod(adapter.getInstance());
  const app = await NestFactory.create<NestFastifyApplication>(GatewayModule.forRoot(config), adapter, {
    logger: options.logger,
    abortOnError: false,
  });
  app.useGlobalFilters(new EnvelopeExceptionFilter(app.get(ErrorAnswers)));
  const fastify = app.getHttpAdapter().getInstance();
  fastify.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  // The HTTP instrumentation's span of each request, named by its route and carrying the request id,
  // which is where the trace meets the request's log lines. Registered only with tracing on.
  if (tracingEnabled())
    fastify.addHook('onRequest', async (request) => {
      const route = request.routeOptions.url ?? 'unmatched';
      annotateActiveSpan({ 'http.route': route, 'appcat.request_id': request.id }, `${request.method} ${route}`);
    });
  const metrics = app.get(GatewayMetrics);
  fastify.addHook('onResponse', async (request, reply) => {
    metrics.requests.inc({ route: request.routeOptions.url ?? 'unmatched', status: String(reply.statusCode) });
  });

  await app.init();
  return app;
}
