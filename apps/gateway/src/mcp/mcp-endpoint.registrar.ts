import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ServerResponse } from 'node:http';
import { McpToolCallsService } from './mcp-tool-calls.service.js';

export const MCP_PATH = '/mcp';

/** JSON-RPC's own codes for answers given outside a JSON-RPC exchange. */
const JSONRPC_PARSE_ERROR = -32700;
const JSONRPC_SERVER_ERROR = -32000;
const JSONRPC_INTERNAL_ERROR = -32603;

const OTHER_METHODS = ['GET', 'DELETE', 'HEAD', 'OPTIONS', 'PATCH', 'PUT'] as const;

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
 * example does. Answers are JSON-RPC, not the envelope, because MCP clients read JSON-RPC. The MCP SDK
 * is loaded on the first POST (see mcp-server.ts); until then the gateway runs without it.
 */
@Injectable()
export class McpEndpointRegistrar implements OnModuleInit {
  private readonly logger = new Logger('Gateway');

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly toolCalls: McpToolCallsService,
  ) {}

  onModuleInit(): void {
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    const errorHandler = (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => this.failed(error, request, reply);
    fastify.route({ method: 'POST', url: MCP_PATH, errorHandler, handler: (request, reply) => this.serve(request, reply) });
    fastify.route({
      method: [...OTHER_METHODS],
      url: MCP_PATH,
      errorHandler,
      handler: (request, reply) => {
        reply.hijack();
        reply.raw.setHeader('x-request-id', request.id);
        writeJsonRpcError(reply.raw.setHeader('allow', 'POST'), 405, JSONRPC_SERVER_ERROR, 'Method not allowed.');
      },
    });
  }

  private async serve(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    // The SDK writes the answer on the raw response; Fastify's onSend hooks do not run, so the request id is set here.
    reply.hijack();
    reply.raw.setHeader('x-request-id', request.id);
    try {
      const { serveMcpRequest } = await loadMcpServerModule();
      await serveMcpRequest(request, reply.raw, this.toolCalls);
    } catch (error) {
      this.logger.error(`mcp request failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      if (!reply.raw.headersSent) writeJsonRpcError(reply.raw, 500, JSONRPC_INTERNAL_ERROR, 'Internal server error');
    }
  }

  /** Failures before the MCP transport runs (a body that is not JSON, too large, of another type), as JSON-RPC errors. */
  private failed(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
    const status = error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500;
    if (status === 500) this.logger.error(`mcp request failed: ${error.stack ?? error.message}`);
    reply.hijack();
    reply.raw.setHeader('x-request-id', request.id);
    const parseError = error.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || error.code === 'FST_ERR_CTP_EMPTY_JSON_BODY' || error instanceof SyntaxError;
    const message = status === 500 ? 'Internal server error' : parseError ? 'Parse error: the body is not JSON' : error.message;
    writeJsonRpcError(reply.raw, status, parseError ? JSONRPC_PARSE_ERROR : status === 500 ? JSONRPC_INTERNAL_ERROR : JSONRPC_SERVER_ERROR, message);
  }
}

function writeJsonRpcError(res: ServerResponse, status: number, code: number, message: string): void {
  const body = JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null });
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
}
