import { GatewayMetrics, type ServiceAppOptions, tracingEnabled } from '@appcat/ops';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { GatewayModule } from './app.module.js';
import type { GatewayConfig } from './config.js';
import { EnvelopeExceptionFilter } from './envelope/envelope-exception.filter.js';
import { type ErrorAnswer, ErrorAnswers } from './errors/error-answers.js';
import { fastifyOptions } from './http/fastify-options.js';
import { routeEveryMethod } from './http/http-methods.js';
import { traceRequests } from './http/request-spans.js';

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
  if (tracingEnabled()) traceRequests(fastify);
  const metrics = app.get(GatewayMetrics);
  fastify.addHook('onResponse', async (request, reply) => {
    metrics.requests.inc({ route: request.routeOptions.url ?? 'unmatched', status: String(reply.statusCode) });
  });

  await app.init();
  return app;
}
