import { PRICE_PER_CALL_MICROS } from '@appcat/contracts';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  InitializeRequestSchema,
  type JSONRPCErrorResponse,
  type JSONRPCMessage,
  ListToolsRequestSchema,
  McpError,
  PingRequestSchema,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { FastifyRequest } from 'fastify';
import type { ServerResponse } from 'node:http';
import { invalidParamsMessage, type SchemaIssue } from './invalid-params.js';
import { type McpToolCallsService, UnknownToolError } from './mcp-tool-calls.service.js';
import { usd } from './mcp-tools.js';

/*
 * Everything that needs the MCP SDK. The endpoint registrar imports this module on the first /mcp
 * request, not at start-up: the SDK with its zod and ajv costs ~9 MB of heap and ~20 MB of RSS, which
 * a gateway that never sees an MCP client need not carry.
 */

const SERVER_INFO = { name: 'appcat', title: 'App catalog, pay per call', version: '1.0.0' };

const INSTRUCTIONS =
  `Read-only app store catalog (the tools say which store and what they cover). Every tool but ` +
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
export async function serveMcpRequest(
  request: FastifyRequest,
  response: ServerResponse,
  toolCalls: McpToolCallsService,
): Promise<void> {
  const server = createServer(request, toolCalls);
  const transport = new ReadableParamErrorsTransport(request.body);
  response.on('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(request.raw, response, request.body);
}

/** The methods served here, by the SDK schema their requests are checked against. */
const REQUEST_SCHEMAS: Readonly<
  Record<string, { safeParse(value: unknown): { success: boolean; error?: { issues: readonly SchemaIssue[] } } }>
> = {
  initialize: InitializeRequestSchema,
  ping: PingRequestSchema,
  'tools/list': ListToolsRequestSchema,
  'tools/call': CallToolRequestSchema,
};

/**
 * The stateless JSON transport, answering a request whose params fail the SDK's schema with -32602
 * and a one-line message naming the problem (`invalidParamsMessage`). The SDK answers those with its
 * schema issues as indented JSON (and with -32603 for methods other than tools/call). Only error answers
 * are looked at, so a call that succeeds costs nothing more.
 */
class ReadableParamErrorsTransport extends StreamableHTTPServerTransport {
  /** @param body the HTTP request's parsed body: the JSON-RPC request or batch the answers are for. */
  constructor(private readonly body: unknown) {
    super({ sessionIdGenerator: undefined, enableJsonResponse: true });
  }

  override send(message: JSONRPCMessage, options?: { relatedRequestId?: RequestId }): Promise<void> {
    return super.send('error' in message ? readableParamError(message, this.body) : message, options);
  }
}

function readableParamError(answer: JSONRPCErrorResponse, body: unknown): JSONRPCErrorResponse {
  if (answer.error.code !== ErrorCode.InvalidParams && answer.error.code !== ErrorCode.InternalError) return answer;
  const request = (Array.isArray(body) ? body : [body]).find(
    (message: unknown) => isRecord(message) && message.id === answer.id,
  ) as Record<string, unknown> | undefined;
  const schema = request && typeof request.method === 'string' ? REQUEST_SCHEMAS[request.method] : undefined;
  const issue = schema?.safeParse(request).error?.issues[0];
  if (!issue) return answer;
  return { ...answer, error: { code: ErrorCode.InvalidParams, message: invalidParamsMessage(issue, request) } };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/** The MCP server for one HTTP request: the generated tool list, and calls made with this request's key. */
function createServer(request: FastifyRequest, toolCalls: McpToolCallsService): Server {
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: { listChanged: false } },
    instructions: INSTRUCTIONS,
    jsonSchemaValidator: SCHEMA_VALIDATOR,
  });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [...toolCalls.toolList] }));
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
