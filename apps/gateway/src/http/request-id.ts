import { REQUEST_ID_HEADER, REQUEST_ID_PATTERN } from '@appcat/contracts';
import type { IncomingMessage } from 'node:http';
import { randomUUID } from 'node:crypto';

/**
 * The request id: the caller's `x-request-id` when it is a safe token (so their traces join ours),
 * otherwise a new UUID. It is echoed on the response and carried through NATS.
 */
export function requestIdFor(request: IncomingMessage): string {
  const given = request.headers[REQUEST_ID_HEADER];
  return typeof given === 'string' && REQUEST_ID_PATTERN.test(given) ? given : randomUUID();
}
