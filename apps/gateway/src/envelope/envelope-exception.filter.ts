import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { HttpError, Messages } from '../errors/http-error.js';
import { sendEnvelope } from './envelope.js';

/**
 * Turns any exception that reaches Nest into an envelope: our HttpError as it is, Nest's own
 * HttpExceptions (404 for unknown paths, 400 for malformed bodies) with their status and a plain
 * message, and anything else as a 500 that reveals nothing.
 */
@Catch()
export class EnvelopeExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('Gateway');

  catch(exception: unknown, host: ArgumentsHost): void {
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    if (exception instanceof HttpError) {
      reply.headers(exception.headers);
      sendEnvelope(reply, exception.status, exception.message);
      return;
    }
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      sendEnvelope(reply, status, status === 404 ? Messages.notFound : plainMessage(exception));
      return;
    }
    this.logger.error(exception instanceof Error ? (exception.stack ?? exception.message) : String(exception));
    sendEnvelope(reply, 500, Messages.internal);
  }
}

function plainMessage(exception: HttpException): string {
  const response = exception.getResponse();
  const message = typeof response === 'object' && response !== null ? (response as { message?: unknown }).message : response;
  return typeof message === 'string' ? message.toLowerCase() : exception.message.toLowerCase();
}
