import { type ArgumentsHost, Catch, type ExceptionFilter } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import type { ErrorAnswers } from '../errors/error-answers.js';
import { sendErrorEnvelope } from './envelope.js';

/**
 * Nest's way to the envelope: every exception that reaches Nest (the free routes' failures, unknown
 * paths, Fastify's errors before a Nest route runs) is answered as `ErrorAnswers` maps it.
 */
@Catch()
export class EnvelopeExceptionFilter implements ExceptionFilter {
  constructor(private readonly errors: ErrorAnswers) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    sendErrorEnvelope(host.switchToHttp().getResponse<FastifyReply>(), this.errors.answer(exception));
  }
}
