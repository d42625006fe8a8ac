import type { FastifyInstance } from 'fastify';
import { METHODS } from 'node:http';

/** Every method Node's parser accepts but CONNECT, which never reaches a route (PreRouteAnswers). */
const ROUTABLE_METHODS = METHODS.filter((method) => method !== 'CONNECT');

/** The methods a path does not serve, for its 405 route. */
export function methodsOtherThan(...served: string[]): string[] {
  return ROUTABLE_METHODS.filter((method) => !served.includes(method));
}

/**
 * Lets Fastify route every method Node accepts, so a path refuses the ones it does not serve with its
 * own 405 (Fastify knows nine and answers the rest 404). None of them has a body Fastify parses: the
 * gateway serves none of them, and QUERY's body rules (400 with Fastify's text without a content type)
 * would come before that 405.
 */
export function routeEveryMethod(fastify: FastifyInstance): void {
  const known = new Set(fastify.supportedMethods);
  for (const method of ROUTABLE_METHODS) {
    if (method === 'QUERY') fastify.addHttpMethod(method, { hasBody: false, overrideExisting: true });
    else if (!known.has(method)) fastify.addHttpMethod(method);
  }
}
