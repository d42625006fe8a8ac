import { PRICE_PER_CALL_MICROS } from '@appcat/contracts';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { FastifyRequest } from 'fastify';
import type { ServerResponse } from 'node:http';
import { type McpToolCallsService, UnknownToolError } from './mcp-tool-calls.service.js';
import { ALL_TOOLS, usd } from './mcp-tools.js';

/*
 * Everything that needs the MCP SDK. The endpoint registrar imports this module on the first /mcp
 * request, not at start-up: the SDK with its zod and ajv costs ~9 MB of heap and ~20 MB of RSS, which
 * a gateway that never sees an MCP client need not carry.
 */

const SERVER_INFO = { name: 'appcat', title: 'App Store catalog, pay per call', version: '1.0.0' };

const INSTRUCTIONS =
  `Read-only App Store catalog (apps, bundles, reviews, similar items, developers). Every tool but ` +
  `credits_balance costs USD ${usd(PRICE_PER_CALL_MICROS)} a call. Pay with prepaid credit by sending ` +
  '`Authorization: Bearer <api key>` on the MCP HTTP requests, or per call with x402: a call without a key ' +
  'answers the x402 PaymentRequired (isError, structuredContent); sign one of its `accepts` and call again with ' +
  'the PaymentPayload in `_meta["x402/payment"]`; the receipt is in the result\'s `_meta["x402/payment-response"]`.';

/**
 * One JSON Schema validator for every per-request server: left to itself, each `Server` builds its
 * own Ajv instance, which cost more CPU than the whole tool call.
 */
const SCHEMA_VALIDATOR = new AjvJsonSchemaValidator();

/**
 * Answers one MCP POST on `response` (JSON, no SSE stream) with a server and transport of its own,
 * both closed when the response closes. Rejects only on failures outside JSON-RPC, before anything
 * may have been written.
 */
export async function serveMcpRequest(request: FastifyRequest, response: ServerResponse, toolCalls: McpToolCallsService): Promise<void> {
  const server = createServer(request, toolCalls);
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  response.on('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(request.raw, response, request.body);
}

/** The MCP server for one HTTP request: the generated tool list, and calls made with this request's key. */
function createServer(request: FastifyRequest, toolCalls: McpToolCallsService): Server {
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: { listChanged: false } },
    instructions: INSTRUCTIONS,
    jsonSchemaValidator: SCHEMA_VALIDATOR,
  });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [...ALL_TOOLS] }));
  server.setRequestHandler(CallToolRequestSchema, async (call) => {
    try {
      return await toolCalls.call(call.params, request);
    } catch (error) {
      // MCP asks for a JSON-RPC error, not a tool error, when the tool does not exist.
      if (error instanceof UnknownToolError) throw new McpError(ErrorCode.InvalidParams, error.message);
      throw error;
    }
  });
  return server;
}
