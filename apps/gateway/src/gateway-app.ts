import { type LoggerService, type LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { GatewayModule } from './app.module.js';
import type { GatewayConfig } from './config.js';
import type { FastifyError } from 'fastify';
import { sendEnvelope } from './envelope/envelope.js';
import { EnvelopeExceptionFilter } from './envelope/envelope-exception.filter.js';
import { Messages } from './errors/http-error.js';
import { fastifyOptions } from './http/fastify-options.js';

/** Builds the gateway, initialised but not listening: `app.listen(port, host)` or `app.inject()` next. */
export async function createGatewayApp(
  config: GatewayConfig,
  options: { logger?: LoggerService | LogLevel[] | false } = {},
): Promise<NestFastifyApplication> {
  const app = await NestFactory.create<NestFastifyApplication>(GatewayModule.forRoot(config), new FastifyAdapter(fastifyOptions(config)), {
    logger: options.logger,
    abortOnError: false,
  });
  app.useGlobalFilters(new EnvelopeExceptionFilter());
  app.enableShutdownHooks();
  const fastify = app.getHttpAdapter().getInstance();
  fastify.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  // Errors Fastify raises itself before a handler runs (body too large, unsupported media type…).
  fastify.setErrorHandler((error: FastifyError, _request, reply) => {
    const status = error.statusCode && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500;
    sendEnvelope(reply, status, status === 500 ? Messages.internal : error.message.toLowerCase());
  });
  await app.init();
  return app;
}
