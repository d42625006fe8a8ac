import { ROUTE_TABLES, type RouteTable } from '@appcat/routes';
import { paramSummary } from './markdown-parts.js';
import {
  CREDIT_PATHS,
  DOCUMENT_PATHS,
  INTERACTIVE_PATHS,
  exampleUrlPath,
  extendedOnlyNetworkNames,
  Headers,
  MIN_TOPUP_USD,
  networkNames,
  PRICE_USD,
  serviceSummary,
  serviceTitle,
} from './service-facts.js';

/**
 * /llms.txt, following the llms.txt convention: an H1, a blockquote summary, a few plain lines, then
 * H2 sections of `- [name](url): notes` links, the last one "Optional".
 */
export function buildLlmsTxt(baseUrl: string, table: RouteTable = ROUTE_TABLES.apple): string {
  const link = (name: string, path: string, notes: string) => `- [${name}](${baseUrl}${path}): ${notes}`;
  return [
    `# ${serviceTitle(table)}`,
    '',
    `> ${serviceSummary(table)}`,
    '',
    `Base URL: ${baseUrl}. Every priced route is a GET costing USD ${PRICE_USD}. Pay per call with x402 v2 ` +
      `(answer the 402's \`${Headers.paymentRequired}\` challenge with \`${Headers.paymentSignature}\`; ${networkNames('standard')}, ` +
      `the developers route also ${extendedOnlyNetworkNames()}) or send ` +
      `\`Authorization: Bearer <api key>\` with a key bought at \`POST ${CREDIT_PATHS.topUp}?amount=<USD>\` (minimum ${MIN_TOPUP_USD}).`,
    '',
    '## Docs',
    '',
    link('Agent set-up guide', DOCUMENT_PATHS.skill, 'paying with x402 or a key, prices, every error and what to do'),
    link(
      'Service catalogue',
      DOCUMENT_PATHS.catalogue,
      'every route with its parameters, rules, price and payment methods',
    ),
    link('OpenAPI 3.1', DOCUMENT_PATHS.openapi, 'machine-readable description of every route, parameter and status'),
    link(
      'x402 discovery',
      DOCUMENT_PATHS.x402Discovery,
      'the paid resources with their live x402 payment requirements',
    ),
    link(
      'MCP server',
      INTERACTIVE_PATHS.mcp,
      'Streamable HTTP: one tool per route, paid with the key in Authorization or with x402 in _meta',
    ),
    link('Top-up page', INTERACTIVE_PATHS.topUpPage, 'buy or recharge a key in a browser with a wallet'),
    '',
    '## API',
    '',
    ...table.routes.map((r) =>
      link(`GET ${r.path}`, exampleUrlPath(r), `${r.description}. Query: ${paramSummary(r)}. USD ${PRICE_USD}.`),
    ),
    link(
      `POST ${CREDIT_PATHS.topUp}`,
      `${CREDIT_PATHS.topUp}?amount=5`,
      'buy a prepaid key (or recharge yours) with x402 for exactly `amount` USD',
    ),
    link(`GET ${CREDIT_PATHS.balance}`, CREDIT_PATHS.balance, 'free: the balance of the key in Authorization'),
    '',
    '## Optional',
    '',
    link('Liveness', '/healthz', 'free'),
    '',
  ].join('\n');
}
