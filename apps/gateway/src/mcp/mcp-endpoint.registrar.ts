import { PRICE_PER_CALL_MICROS } from '@appcat/contracts';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ServerResponse } from 'node:http';
import { ALL_TOOLS, usd } from './mcp-tools.js';
import { McpToolCallsService } from './mcp-tool-calls.service.js';

export const MCP_PATH = '/mcp';

const SERVER_INFO = { name: 'appcat', title: 'App Store catalog, pay per call', version: '1.0.0' };

const INSTRUCTIONS =
  `Read-only App Store catalog (apps, bundles, reviews, similar items, developers). Every tool but ` +
  `credits_balance costs USD ${usd(PRICE_PER_CALL_MICROS)} a call. Pay with prepaid credit by sending ` +
  '`Authorization: Bearer <api key>` on the MCP HTTP requests, or per call with x402: a call without a key ' +
  'answers the x402 PaymentRequired (isError, structuredContent); sign one of its `accepts` and call again with ' +
  'the PaymentPayload in `_meta["x402/payment"]`; the receipt is in the result\'s `_meta["x402/payment-response"]`.';

/** JSON-RPC's own codes for answers given outside a JSON-RPC exchange. */
const JSONRPC_PARSE_ERROR = -32700;
const JSONRPC_SERVER_ERROR = -32000;
const JSONRPC_INTERNAL_ERROR = -32603;

const OTHER_METHODS = ['GET', 'DELETE', 'HEAD', 'OPTIONS', 'PATCH', 'PUT'] as const;

/**
 * One JSON Schema validator for every per-request server: left to itself, each `Server` builds its
 * own Ajv instance, which cost more CPU than the whole tool call.
 */
const SCHEMA_VALIDATOR = new AjvJsonSchemaValidator();

/**
 * MCP over Streamable HTTP at `/mcp`, stateless: each POST gets a new MCP server and transport, so
 * any replica answers any request behind the load balancer and nothing is kept between requests.
 * Answers are JSON (no SSE stream): every tool answers once. GET (the server-to-client stream) and
 * DELETE (session end) have nothing to do without sessions and answer 405, as the SDK's stateless
 * example does. Answers are JSON-RPC, not the envelope, because MCP clients read JSON-RPC.
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
    const server = this.createServer(request);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    reply.raw.on('close', () => {
      void transport.close();
      void server.close();
    });
    try {
      await server.connect(transport);
      await transport.handleRequest(request.raw, reply.raw, request.body);
    } catch (error) {
      this.logger.error(`mcp request failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      if (!reply.raw.headersSent) writeJsonRpcError(reply.raw, 500, JSONRPC_INTERNAL_ERROR, 'Internal server error');
    }
  }

  /** The MCP server for one HTTP request: the generated tool list, and calls made with this request's key. */
  private createServer(request: FastifyRequest): Server {
    const server = new Server(SERVER_INFO, {
      capabilities: { tools: { listChanged: false } },
      instructions: INSTRUCTIONS,
      jsonSchemaValidator: SCHEMA_VALIDATOR,
    });
    server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [...ALL_TOOLS] }));
    server.setRequestHandler(CallToolRequestSchema, (call) => this.toolCalls.call(call.params, request));
    return server;
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
