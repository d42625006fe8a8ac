import { formatUsd } from '@appcat/contracts';
import { MCP_BALANCE_TOOL_NAME, mcpToolName, type PricedRoute, type RawQuery } from '@appcat/routes';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { HttpError } from '../errors/http-error.js';
import { type ToolInputSchema, toolInputSchema } from './tool-input-schema.js';

/** A priced tool: one route of the route table, under an MCP tool name. */
export interface PricedTool {
  name: string;
  route: PricedRoute;
  definition: Tool;
}

/** "0.003" from 3000 µUSD: the price as people write it. */
export function usd(micros: bigint): string {
  return formatUsd(micros).replace(/\.?0+$/, '');
}

function pricedTool(route: PricedRoute): PricedTool {
  const name = mcpToolName(route);
  const inputSchema: ToolInputSchema = toolInputSchema(route);
  return {
    name,
    route,
    definition: {
      name,
      title: route.description,
      description:
        `${route.description}. USD ${usd(route.price)} per call, charged before the data is fetched: from the API key sent as ` +
        `\`Authorization: Bearer\` on the MCP connection, or with x402 (without a key the call answers the x402 PaymentRequired; ` +
        `retry with the payment in _meta["x402/payment"]). The same data as GET ${route.path}.`,
      inputSchema,
      // Not read-only: every call spends money, so clients should not treat it as free to repeat.
      annotations: { title: route.description, destructiveHint: false, openWorldHint: true },
    },
  };
}

/** One tool per priced route, generated from a store's route table. */
export function pricedTools(routes: readonly PricedRoute[]): ReadonlyMap<string, PricedTool> {
  return new Map(routes.map((route) => [mcpToolName(route), pricedTool(route)]));
}

export const BALANCE_TOOL: Tool = {
  name: MCP_BALANCE_TOOL_NAME,
  title: 'Credit balance',
  description:
    'Free. The USD balance left on the API key sent as `Authorization: Bearer` on the MCP connection, with six decimals ("4.997000").',
  inputSchema: { type: 'object', properties: {} },
  outputSchema: {
    type: 'object',
    properties: {
      balance: { type: 'string', description: 'USD with six decimals' },
      currency: { type: 'string', enum: ['USD'] },
    },
    required: ['balance', 'currency'],
  },
  annotations: {
    title: 'Credit balance',
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
};

/** What `tools/list` answers: the priced tools, then the free balance tool. */
export function toolList(tools: ReadonlyMap<string, PricedTool>): readonly Tool[] {
  return [...[...tools.values()].map((tool) => tool.definition), BALANCE_TOOL];
}

/**
 * A tool call's arguments as the route's path parameters and query, the form `validateRouteInput`
 * takes over HTTP. Numbers are accepted where the value is a string of digits (ids, page) and passed
 * on as text; other types are refused naming the parameter. Unknown arguments are ignored, like
 * unknown query parameters.
 */
export function toRouteInput(
  tool: PricedTool,
  args: Record<string, unknown> | undefined,
): { pathParams: Record<string, string | undefined>; query: RawQuery } {
  const text = (name: string): string | undefined => {
    const value = args?.[name];
    if (value === undefined || value === null) return undefined;
    if (typeof value === 'string') return value;
    // A number past 2^53 has already lost digits (a Google Play developer id): refuse it rather than look up another id.
    if (typeof value === 'number' && Number.isInteger(value) && !Number.isSafeInteger(value))
      throw new HttpError(400, `${name} must be a string: a number this large loses digits`);
    if (typeof value === 'number' && Number.isFinite(value)) return String(value);
    const expected =
      (tool.definition.inputSchema.properties?.[name] as { type?: string } | undefined)?.type ?? 'string';
    throw new HttpError(400, `${name} must be ${expected === 'integer' ? 'an integer' : 'a string'}`);
  };
  const pathParams: Record<string, string | undefined> = {};
  const query: RawQuery = {};
  for (const name of tool.route.pathParams) pathParams[name] = text(name);
  for (const name of tool.route.queryParams) query[name] = text(name);
  return { pathParams, query };
}
