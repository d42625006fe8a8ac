import { Injectable, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ErrorAnswers } from '../errors/error-answers.js';
import { methodsOtherThan } from '../http/http-methods.js';
import { JsonRpcCode, JsonRpcError, writeJsonRpcError } from './json-rpc-errors.js';
import { McpToolCallsService } from './mcp-tool-calls.service.js';

export const MCP_PATH = '/mcp';

const OTHER_METHODS = methodsOtherThan('POST');

const METHOD_NOT_ALLOWED = new JsonRpcError(405, JsonRpcCode.serverError, 'Method not allowed.', { allow: 'POST' });
const PARSE_ERROR = new JsonRpcError(400, JsonRpcCode.parseError, 'Parse error: the body is not JSON');
/** JSON-RPC 2.0 §6: an empty batch is one Invalid Request error (the SDK would answer it with an empty 202). */
const EMPTY_BATCH = new JsonRpcError(400, JsonRpcCode.invalidRequest, 'Invalid Request: an empty batch');

type McpServerModule = typeof import('./mcp-server.js');

/**
 * The MCP server module (and with it the SDK), imported by the first /mcp request. Concurrent first
 * requests share one import; a failed import is forgotten, so a later request tries again.
 */
let mcpServerModule: Promise<McpServerModule> | undefined;

function loadMcpServerModule(): Promise<McpServerModule> {
  mcpServerModule ??= import('./mcp-server.js').catch((error: unknown) => {
    mcpServerModule = undefined;
    throw error;
  });
  return mcpServerModule;
}

/**
 * MCP over Streamable HTTP at `/mcp`, stateless: each POST gets a new MCP server and transport, so
 * any replica answers any request behind the load balancer and nothing is kept between requests.
 * Answers are JSON (no SSE stream): every tool answers once. GET (the server-to-client stream) and
 * DELETE (session end) have nothing to do without sessions and answer 405, as the SDK's stateless
 * example does. Answers are JSON-RPC, not the envelope, because MCP clients read JSON-RPC; failures
 * outside a JSON-RPC exchange keep the status and message ErrorAnswers gives them. The MCP SDK is
 * loaded on the first POST (see mcp-server.ts); until then the gateway runs without it.
 */
@Injectable()
export class McpEndpointRegistrar implements OnModuleInit {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly toolCalls: McpToolCallsService,
    private readonly errors: ErrorAnswers,
  ) {}

  onModuleInit(): void {
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    const errorHandler = (error: FastifyError, request: FastifyRequest, reply: FastifyReply) =>
      this.refuse(request, reply, isJsonParseFailure(error) ? PARSE_ERROR : error);
    fastify.route({
      method: 'POST',
      url: MCP_PATH,
      errorHandler,
      handler: (request, reply) => this.serve(request, reply),
    });
    fastify.route({
      method: OTHER_METHODS,
      url: MCP_PATH,
      errorHandler,
      handler: (request, reply) => this.refuse(request, reply, METHOD_NOT_ALLOWED),
    });
  }

  private async serve(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    if (Array.isArray(request.body)) {
      if (request.body.length === 0) return this.refuse(request, reply, EMPTY_BATCH);
      const repeated = repeatedRequestId(request.body);
      if (repeated !== undefined) return this.refuse(request, reply, repeatedIdError(repeated));
    }
    // The SDK writes the answer on the raw response; Fastify's onSend hooks do not run, so the request id is set here.
    reply.hijack();
    reply.raw.setHeader('x-request-id', request.id);
    try {
      const { serveMcpRequest } = await loadMcpServerModule();
      await serveMcpRequest(request, reply.raw, this.toolCalls);
    } catch (error) {
      if (!reply.raw.headersSent) writeJsonRpcError(reply.raw, error, this.errors.answer(error, 'mcp request'));
    }
  }

  /** A failure before the MCP transport runs (a body that is not JSON, too large, of another type; another method), as a JSON-RPC error. */
  private refuse(request: FastifyRequest, reply: FastifyReply, error: unknown): void {
    reply.hijack();
    reply.raw.setHeader('x-request-id', request.id);
    writeJsonRpcError(reply.raw, error, this.errors.answer(error, 'mcp request'));
  }
}

/**
 * The first request id a batch gives twice. MCP forbids reusing an id, and the answers, matched by id,
 * could not tell the copies apart, so such a batch is refused whole before any of it runs or is
 * charged. Ids are compared as JSON-RPC gives them: 7 and "7" are two ids.
 */
function repeatedRequestId(batch: unknown[]): string | number | undefined {
  const seen = new Set<string | number>();
  for (const message of batch) {
    if (typeof message !== 'object' || message === null || !('method' in message) || !('id' in message)) continue;
    const { id } = message;
    if (typeof id !== 'string' && typeof id !== 'number') continue;
    if (seen.has(id)) return id;
    seen.add(id);
  }
  return undefined;
}

const repeatedIdError = (id: string | number) =>
  new JsonRpcError(
    400,
    JsonRpcCode.invalidRequest,
    `Invalid Request: the batch repeats the request id ${JSON.stringify(id)}`,
  );

/** Fastify's JSON body parser refused the body: JSON-RPC's parse error. */
function isJsonParseFailure(error: FastifyError): boolean {
  return (
    error.code === 'FST_ERR_CTP_INVALID_JSON_BODY' ||
    error.code === 'FST_ERR_CTP_EMPTY_JSON_BODY' ||
    error instanceof SyntaxError
  );
}
