import { formatUsd } from '@appcat/contracts';
import { MCP_BALANCE_TOOL_NAME } from '@appcat/routes';
import { Injectable, Logger } from '@nestjs/common';
import type { CallToolRequest, CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { FastifyRequest } from 'fastify';
import { CreditsClient } from '../credits/credits.client.js';
import { HttpError, Messages } from '../errors/http-error.js';
import { GatewayOps } from '../ops/gateway-ops.js';
import { PaymentRequiredError } from '../payment/payment-challenge.js';
import { readIdempotencyKey } from '../idempotency/call-names.js';
import { type Charge, PricedCallService } from '../priced/priced-call.service.js';
import { declineReason } from '../priced/priced-routes.registrar.js';
import { PRICED_TOOLS, type PricedTool, toRouteInput } from './mcp-tools.js';
import { paymentRequiredResult, readMcpCredentials, settleResponseOf, X402_PAYMENT_RESPONSE_META } from './x402-mcp.js';

/** `_meta` keys of our own on tool results (the MCP convention: a prefix, a slash, a name). */
export const Meta = {
  creditsRemaining: 'appcat/credits-remaining',
  cache: 'appcat/cache',
  age: 'appcat/age',
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
 * debit or x402 settlement, the same catalog fetch. HTTP's failures become tool errors (`isError`)
 * with the same message; a call without payment, or with a refused one, is x402's PaymentRequired.
 * An unknown tool is an UnknownToolError, for the MCP server to answer as a JSON-RPC error. Loads
 * nothing of the MCP SDK (types only), so the gateway starts without it.
 */
@Injectable()
export class McpToolCallsService {
  private readonly logger = new Logger('Gateway');

  constructor(
    private readonly priced: PricedCallService,
    private readonly credits: CreditsClient,
    private readonly ops: GatewayOps,
  ) {}

  /** One `tools/call` of the MCP HTTP request `request` (its headers carry the key, if any). */
  async call(params: CallToolRequest['params'], request: FastifyRequest): Promise<CallToolResult> {
    if (params.name === MCP_BALANCE_TOOL_NAME) return this.guard(params.name, () => this.balance(request));
    const tool = PRICED_TOOLS.get(params.name);
    if (!tool) throw new UnknownToolError(params.name);
    let charge: Charge | undefined;
    return this.guard(
      params.name,
      () => this.pricedCall(tool, params, request, (c) => (charge = c)),
      () => charge,
    );
  }

  private async pricedCall(
    tool: PricedTool,
    params: CallToolRequest['params'],
    request: FastifyRequest,
    onCharged: (charge: Charge) => void,
  ): Promise<CallToolResult> {
    const answer = await this.priced.call({
      route: tool.route,
      ...toRouteInput(tool, params.arguments),
      credentials: () => readMcpCredentials(request.headers, params._meta),
      idempotencyKey: () => readIdempotencyKey(request.headers),
      resourceUrl: () => `mcp://tool/${tool.name}`,
      requestId: request.id,
      onCharged,
    });
    const data: unknown = JSON.parse(answer.dataJson);
    return {
      content: [{ type: 'text', text: answer.dataJson }],
      ...(isRecord(data) ? { structuredContent: data } : {}),
      _meta: {
        ...chargeMeta(answer.charge),
        [Meta.cache]: answer.source.toUpperCase(),
        ...(answer.ageSeconds === undefined ? {} : { [Meta.age]: Math.max(0, Math.floor(answer.ageSeconds)) }),
      },
    };
  }

  private async balance(request: FastifyRequest): Promise<CallToolResult> {
    const credentials = readMcpCredentials(request.headers, undefined);
    if (credentials.kind !== 'credits') throw new HttpError(401, 'an api key is required: Authorization: Bearer <api key>');
    const balance = { balance: formatUsd(await this.credits.balance(credentials.keyHash, request.id)), currency: 'USD' };
    return { content: [{ type: 'text', text: JSON.stringify(balance) }], structuredContent: balance };
  }

  /** Turns a failed call into a tool error; a charge made before the failure is still reported. */
  private async guard(name: string, run: () => Promise<CallToolResult>, charged: () => Charge | undefined = () => undefined): Promise<CallToolResult> {
    try {
      return await run();
    } catch (error) {
      if (error instanceof PaymentRequiredError) {
        this.ops.metrics.declines.inc({ reason: declineReason(error) });
        return paymentRequiredResult(error.paymentRequired);
      }
      const charge = charged();
      const meta = charge ? { _meta: chargeMeta(charge) } : {};
      if (error instanceof HttpError) {
        this.ops.metrics.declines.inc({ reason: declineReason(error) });
        return { isError: true, content: [{ type: 'text', text: error.message }], ...meta };
      }
      this.logger.error(`mcp ${name} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      return { isError: true, content: [{ type: 'text', text: Messages.internal }], ...meta };
    }
  }
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
