import type { ServerResponse } from 'node:http';
import type { ErrorAnswer } from '../errors/error-answers.js';
import { HttpError } from '../errors/http-error.js';

/** JSON-RPC 2.0's error codes, and the implementation-defined server error the MCP SDK uses over HTTP. */
export const JsonRpcCode = {
  parseError: -32700,
  invalidRequest: -32600,
  internalError: -32603,
  serverError: -32000,
} as const;

/** A failure of the MCP endpoint with the JSON-RPC code it is answered with, besides its HTTP status. */
export class JsonRpcError extends HttpError {
  constructor(
    status: number,
    readonly code: number,
    message: string,
    headers: Record<string, string> = {},
  ) {
    super(status, message, headers);
    this.name = 'JsonRpcError';
  }
}

/**
 * Writes a failure answered outside a JSON-RPC exchange (`id: null`) on the hijacked response: the
 * status, headers and message of its answer (ErrorAnswers), and the JSON-RPC code the error names, or
 * -32603 for an internal error and -32000 for any other.
 */
export function writeJsonRpcError(response: ServerResponse, error: unknown, answer: ErrorAnswer): void {
  const code =
    error instanceof JsonRpcError
      ? error.code
      : answer.status >= 500
        ? JsonRpcCode.internalError
        : JsonRpcCode.serverError;
  const body = JSON.stringify({ jsonrpc: '2.0', error: { code, message: answer.message }, id: null });
  response
    .writeHead(answer.status, {
      ...answer.headers,
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
    })
    .end(body);
}
