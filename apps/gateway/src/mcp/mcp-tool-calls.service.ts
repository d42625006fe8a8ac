import { formatUsd } from '@appcat/contracts';
import { MCP_BALANCE_TOOL_NAME, ROUTE_TABLES } from '@appcat/routes';
import { Inject, Injectable } from '@nestjs/common';
import type { CallToolRequest, CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { FastifyRequest } from 'fastify';
import { GATEWAY_CONFIG } from '../config.provider.js';
import type { GatewayConfig } from '../config.js';
import { CreditsClient } from '../credits/credits.client.js';
import { ErrorAnswers } from '../errors/error-answers.js';
import { PaymentRequiredError } from '../payment/payment-challenge.js';
import { requireKeyHash } from '../payment/payment-credentials.js';
import { readIdempotencyKey } from '../idempotency/call-names.js';
import { requestTrace } from '../http/request-spans.js';
import { PricedCallService } from '../priced/priced-call.service.js';
import type { Charge, PricedAnswer, PricedResult } from '../priced/priced-result.js';
import { type PricedTool, pricedTools, toolList, toRouteInput } from './mcp-tools.js';
import { paymentRequiredResult, readMcpCredentials, settleResponseOf, X402_PAYMENT_RESPONSE_META } from './x402-mcp.js';

/** `_meta` keys of our own on tool results (the MCP convention: a prefix, a slash, a name). */
export const Meta = {
  creditsRemaining: 'appcat/credits-remaining',
  cache: 'appcat/cache',
  age: 'appcat/age',
  upstreamSource: 'appcat/upstream-source',
} as const;

/** A `tools/call` naming no tool of ours; the MCP server answers it as a JSON-RPC InvalidParams error. */
export class UnknownToolError extends Error {
  constructor(name: string) {
    super(`unknown tool: ${name}`);
    this.name = 'UnknownToolError';
  }
}

/**
 * Runs MCP tool calls through the same priced-call path as HTTP: the same validation, the same
 * hold, fetch and capture (a credit reservation or an x402 payment), never charged for a failure. Failures become tool errors (`isError`) with the
 * message ErrorAnswers gives them over HTTP; a call without payment, or with a refused one, is x402's
 * PaymentRequired. An unknown tool is an UnknownToolError, for the MCP server to answer as a JSON-RPC
 * error. Loads nothing of the MCP SDK (types only), so the gateway starts without it.
 */
@Injectable()
export class McpToolCallsService {
  /** The tools of this address's store, by name, and the list `tools/list` answers. */
  readonly tools: ReadonlyMap<string, PricedTool>;
  readonly toolList: readonly Tool[];

  constructor(
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
    private readonly priced: PricedCallService,
    private readonly credits: CreditsClient,
    private readonly errors: ErrorAnswers,
  ) {
    this.tools = pricedTools(ROUTE_TABLES[config.store].routes);
    this.toolList = toolList(this.tools);
  }

  /** One `tools/call` of the MCP HTTP request `request` (its headers carry the key, if any). */
  async call(params: CallToolRequest['params'], request: FastifyRequest): Promise<CallToolResult> {
    if (params.name === MCP_BALANCE_TOOL_NAME) {
      try {
        return await this.balance(request);
      } catch (error) {
        return this.failed(params.name, error, request);
      }
    }
    const tool = this.tools.get(params.name);
    if (!tool) throw new UnknownToolError(params.name);
    const result = await this.pricedCall(tool, params, request);
    return result.ok ? rendered(result.answer) : this.failed(params.name, result.error, request);
  }

  private async pricedCall(
    tool: PricedTool,
    params: CallToolRequest['params'],
    request: FastifyRequest,
  ): Promise<PricedResult> {
    let input: ReturnType<typeof toRouteInput>;
    try {
      input = toRouteInput(tool, params.arguments);
    } catch (error) {
      return { ok: false, error };
    }
    return this.priced.call({
      route: tool.route,
      ...input,
      credentials: () => readMcpCredentials(request.headers, params._meta),
      idempotencyKey: () => readIdempotencyKey(request.headers),
      resourceUrl: () => `mcp://tool/${tool.name}`,
      requestId: request.id,
      trace: requestTrace(request),
    });
  }

  private async balance(request: FastifyRequest): Promise<CallToolResult> {
    const keyHash = requireKeyHash(readMcpCredentials(request.headers, undefined));
    const balance = {
      balance: formatUsd(await this.credits.balance(keyHash, request.id)),
      currency: 'USD',
    };
    return { content: [{ type: 'text', text: JSON.stringify(balance) }], structuredContent: balance };
  }

  /** A failed call as a tool error; nothing was charged for it. */
  private failed(name: string, error: unknown, request: FastifyRequest): CallToolResult {
    const answer = this.errors.uncharged(error, `mcp ${name}`, { requestId: request.id, trace: requestTrace(request) });
    if (error instanceof PaymentRequiredError) return paymentRequiredResult(error.paymentRequired);
    return { isError: true, content: [{ type: 'text', text: answer.message }] };
  }
}

/** A delivered call: the data as structured content and as JSON text, with the charge and the data's origin in `_meta`. */
function rendered(answer: PricedAnswer): CallToolResult {
  const data: unknown = JSON.parse(answer.dataJson);
  return {
    content: [{ type: 'text', text: answer.dataJson }],
    ...(isRecord(data) ? { structuredContent: data } : {}),
    _meta: {
      ...chargeMeta(answer.charge),
      [Meta.cache]: answer.source.toUpperCase(),
      ...(answer.ageSeconds === undefined ? {} : { [Meta.age]: Math.max(0, Math.floor(answer.ageSeconds)) }),
      ...(answer.upstreamSource === undefined ? {} : { [Meta.upstreamSource]: answer.upstreamSource }),
    },
  };
}

/** The receipt (x402) or the balance left (credits), as result `_meta`. */
function chargeMeta(charge: Charge): Record<string, unknown> {
  return charge.method === 'x402'
    ? { [X402_PAYMENT_RESPONSE_META]: settleResponseOf(charge.receipt.paymentResponse) }
    : { [Meta.creditsRemaining]: formatUsd(charge.balance) };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
