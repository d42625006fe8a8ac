import { ErrorCode, type WireError, WirePayloadError } from '@appcat/contracts';
import { Catch, type ArgumentsHost, Logger, type RpcExceptionFilter } from '@nestjs/common';
import { RpcException } from '@nestjs/microservices';
import { type Observable, throwError } from 'rxjs';

/** A failure with a typed code, sent to the requester as a {@link WireError}. */
export class WireException extends RpcException {
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super({ code, message } satisfies WireError);
  }
}

/**
 * Every failed reply is a {@link WireError}: a {@link WireException} passes as it is, a payload its
 * subject's schema refused (WirePayloadError) as INVALID_ARGUMENT naming the field, anything else is a
 * bug and goes out as `INTERNAL` without its details (they are logged here instead).
 */
@Catch()
export class WireExceptionFilter implements RpcExceptionFilter<unknown> {
  private readonly logger = new Logger('WireExceptionFilter');

  catch(exception: unknown, _host: ArgumentsHost): Observable<never> {
    if (exception instanceof WireException) return throwError(() => exception.getError());
    if (exception instanceof WirePayloadError)
      return throwError(() => ({ code: exception.code, message: exception.message }) satisfies WireError);
    this.logger.error(exception instanceof Error ? (exception.stack ?? exception.message) : String(exception));
    return throwError(() => ({ code: ErrorCode.Internal, message: 'internal error' }) satisfies WireError);
  }
}
