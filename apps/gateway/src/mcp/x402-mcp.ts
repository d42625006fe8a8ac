import type { IncomingHttpHeaders } from 'node:http';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { decodeX402Header, encodeX402Header } from '@appcat/contracts';
import type { PaymentRequired } from '@x402/core/types';
import { HttpError } from '../errors/http-error.js';
import { type PaymentCredentials, readBearerKeyHash } from '../payment/payment-credentials.js';

/*
 * x402's MCP transport (specs/transports-v2/mcp.md): the payment travels in the tool call's
 * `_meta["x402/payment"]` (a PaymentPayload object), the receipt comes back in the result's
 * `_meta["x402/payment-response"]` (a SettleResponse object), and an unpaid or refused call is a tool
 * error whose structured content, and first text block, is the PaymentRequired.
 */

export const X402_PAYMENT_META = 'x402/payment';
export const X402_PAYMENT_RESPONSE_META = 'x402/payment-response';

/**
 * How an MCP tool call offers to pay: the key on the MCP HTTP request's `Authorization`, or an x402
 * payment in the call's `_meta`. Both at once is refused, as over HTTP.
 */
export function readMcpCredentials(
  headers: IncomingHttpHeaders,
  meta: Record<string, unknown> | undefined,
): PaymentCredentials {
  const authorization = headers.authorization;
  const payment = meta?.[X402_PAYMENT_META];
  const paid = payment !== undefined && payment !== null;
  if (authorization !== undefined && paid) {
    throw new HttpError(400, `authorization and _meta["${X402_PAYMENT_META}"] cannot be combined: pay with one`);
  }
  // Payments takes the payload in its HTTP header form; a client that already encoded it may send that.
  if (paid)
    return {
      kind: 'x402',
      paymentSignature: typeof payment === 'string' ? payment : encodeX402Header(payment),
    };
  if (authorization === undefined) return { kind: 'none' };
  return { kind: 'credits', keyHash: readBearerKeyHash(authorization) };
}

/** The unpaid (or refused) call: PaymentRequired as structured content and as the first text block. */
export function paymentRequiredResult(paymentRequired: PaymentRequired): CallToolResult {
  return {
    isError: true,
    structuredContent: paymentRequired as unknown as Record<string, unknown>,
    content: [{ type: 'text', text: JSON.stringify(paymentRequired) }],
  };
}

/** The SettleResponse object for `_meta["x402/payment-response"]`, from the receipt's header form. */
export function settleResponseOf(paymentResponse: string): Record<string, unknown> {
  return decodeX402Header(paymentResponse) as Record<string, unknown>;
}
