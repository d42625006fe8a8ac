import type { LoggerService } from '@nestjs/common';
import pino, { type Logger } from 'pino';
import { activeTraceIds, tracingEnabled } from './tracing.js';

/**
 * Fields that must never reach a log line: API keys, payment signatures, authorization headers. pino
 * replaces them wherever they appear in a logged object; messages are written by our own code, which
 * never puts a key or signature in a message.
 */
export const REDACTED_PATHS = [
  'key',
  'apiKey',
  'authorization',
  'paymentSignature',
  '*.key',
  '*.apiKey',
  '*.authorization',
  '*.paymentSignature',
  'headers.authorization',
  'headers["payment-signature"]',
  '*.headers.authorization',
  '*.headers["payment-signature"]',
];

const noTraceIds = {};

/**
 * One JSON object per line on stdout, with the service name on every line; with tracing on, a line
 * written inside a sampled span also carries its `trace_id` and `span_id`, which is where a request id
 * logged by a call meets that call's trace.
 */
export function createJsonLogger(service: string, level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      formatters: { level: (label) => ({ level: label }) },
      ...(tracingEnabled() ? { mixin: () => activeTraceIds() ?? noTraceIds } : {}),
    },
    destination,
  );
}

/** Nest's logger interface over pino: framework and service messages come out as the same JSON lines. */
export class JsonNestLogger implements LoggerService {
  constructor(private readonly logger: Logger) {}

  log(message: unknown, context?: string): void {
    this.write('info', message, context);
  }
  error(message: unknown, stackOrContext?: string, context?: string): void {
    this.write('error', message, context ?? stackOrContext);
  }
  warn(message: unknown, context?: string): void {
    this.write('warn', message, context);
  }
  debug(message: unknown, context?: string): void {
    this.write('debug', message, context);
  }
  verbose(message: unknown, context?: string): void {
    this.write('trace', message, context);
  }

  private write(level: 'info' | 'error' | 'warn' | 'debug' | 'trace', message: unknown, context?: string): void {
    if (typeof message === 'object' && message !== null && !(message instanceof Error)) {
      this.logger[level]({ context, ...(message as object) });
    } else {
      this.logger[level]({ context }, message instanceof Error ? (message.stack ?? message.message) : String(message));
    }
  }
}

/** Sends what libraries print with console.warn/error (x402's facilitator client does) through the JSON logger. */
export function routeConsoleTo(logger: JsonNestLogger): void {
  /* eslint-disable no-console -- this is the one place that replaces console */
  console.warn = (...parts: unknown[]) => logger.warn(parts.map(String).join(' '), 'console');
  console.error = (...parts: unknown[]) => logger.error(parts.map(String).join(' '), 'console');
  console.log = (...parts: unknown[]) => logger.log(parts.map(String).join(' '), 'console');
  /* eslint-enable no-console */
}
