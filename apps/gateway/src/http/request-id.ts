import { REQUEST_ID_HEADER } from '@appcat/contracts';
import type { IncomingMessage } from 'node:http';
import { randomUUID } from 'node:crypto';

const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * The request id: the caller's `x-request-id` when it is a safe token (so their traces join ours),
 * otherwise a new UUID. It is echoed on the response and carried through NATS.
 */
export function requestIdFor(request: IncomingMessage): string {
  const given = request.headers[REQUEST_ID_HEADER];
  return typeof given === 'string' && SAFE_REQUEST_ID.test(given) ? given : randomUUID();
}
