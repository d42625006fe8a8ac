import { PRICE_PER_CALL_MICROS } from '@appcat/contracts';
import { MCP_BALANCE_TOOL_NAME, mcpToolName, ROUTE_TABLES, type RouteTable } from '@appcat/routes';
import { errorTable, networkList, paramSummary, paramTable, PRICE_LINE } from './markdown-parts.js';
import {
  API_VERSION,
  CREDIT_PATHS,
  DOCUMENT_PATHS,
  INTERACTIVE_PATHS,
  exampleUrlPath,
  extendedOnlyNetworkNames,
  Headers,
  MAX_TOPUP_USD,
  MIN_TOPUP_USD,
  networkNames,
  PRICE_USD,
  serviceSummary,
  serviceTitle,
} from './service-facts.js';

/** /index.md: the service catalogue, every route with its parameters, price and payment methods. */
export function buildCatalogueMarkdown(baseUrl: string, table: RouteTable = ROUTE_TABLES.apple): string {
  const overview = table.routes.map(
    (r, i) =>
      `| ${i + 1} | \`GET ${r.path}\` | ${r.description} | ${paramSummary(r)} | USD ${PRICE_USD} | ${networkNames(r.networks)} or a key |`,
  );
  const routes = table.routes.map((r) =>
    [
      `### \`GET ${r.path}\``,
      '',
      `${r.description}. **USD ${PRICE_USD}** a call; x402 on ${networkList(r)}, or a prepaid key.`,
      '',
      paramTable(r),
      '',
      '```sh',
      `curl -H "Authorization: Bearer <api key>" "${baseUrl}${exampleUrlPath(r)}"`,
      '```',
    ].join('\n'),
  );
  return [
    `# ${serviceTitle(table)}`,
    '',
    `> ${serviceSummary(table)}`,
    '',
    `Base URL: \`${baseUrl}\` · interface version ${API_VERSION} · paths carry no version.`,
    '',
    '## Routes',
    '',
    '| # | route | what it returns | query | price | pay with |',
    '|---|---|---|---|---|---|',
    ...overview,
    `| | \`GET ${CREDIT_PATHS.balance}\` | the balance of your key | none | free | a key |`,
    `| | \`POST ${CREDIT_PATHS.topUp}\` | a new key holding \`amount\` USD, or that much added to your key | \`amount\` (required) | \`amount\` | x402 (${networkNames('standard')}) |`,
    '',
    'Every answer is `{"status": <HTTP status>, "message": "ok" or the reason, "data": <payload or null>}`. ' +
      '`data` of a priced route is one page of the store\'s records: `{"resultCount": n, "results": [...]}`; an unknown id ' +
      'is a paid `200` with `resultCount: 0`.',
    '',
    '## Pricing',
    '',
    PRICE_LINE,
    `Top-ups: USD ${MIN_TOPUP_USD} to ${MAX_TOPUP_USD}. No plans, no rate limits: the balance or the payment is the only limit.`,
    '',
    '## Payment methods',
    '',
    `- **x402 v2, per call.** Call without credentials: the \`402\` carries \`${Headers.paymentRequired}\` (base64 PaymentRequired, ` +
      `one \`exact\` USDC entry per network, \`amount: "${PRICE_PER_CALL_MICROS}"\`, Base first). Sign one and retry with \`${Headers.paymentSignature}\`; ` +
      `the payment is settled before the data is fetched and the answer carries \`${Headers.paymentResponse}\`. Gas is sponsored. ` +
      `Networks: ${networkNames('standard')}; the developers route also ${extendedOnlyNetworkNames()}. ` +
      `The live list is in the challenge and at [${DOCUMENT_PATHS.x402Discovery}](${baseUrl}${DOCUMENT_PATHS.x402Discovery}).`,
    `- **Prepaid credits.** \`POST ${CREDIT_PATHS.topUp}?amount=5\` paid with x402 returns a key holding USD 5 (shown once). ` +
      `Send \`Authorization: Bearer <api key>\` on each call: USD ${PRICE_USD} is drawn, the answer carries \`${Headers.creditsRemaining}\`. ` +
      'The same top-up with the key recharges it.',
    '- Both on one call is a `400`: send one.',
    `- **In a browser.** [${INTERACTIVE_PATHS.topUpPage}](${baseUrl}${INTERACTIVE_PATHS.topUpPage}) buys or recharges a key with a wallet (USDC, EIP-3009).`,
    `- **Over MCP.** \`POST ${baseUrl}${INTERACTIVE_PATHS.mcp}\` (Streamable HTTP) has one tool per route (${table.routes.map((r) => `\`${mcpToolName(r)}\``).join(', ')}) ` +
      `and the free \`${MCP_BALANCE_TOOL_NAME}\`, at the same price: send the key as \`Authorization: Bearer\`, or pay each call with x402 in \`_meta["x402/payment"]\`.`,
    '',
    '## Route details',
    '',
    routes.join('\n\n'),
    '',
    `### \`POST ${CREDIT_PATHS.topUp}\``,
    '',
    `Query \`amount\`: USD ${MIN_TOPUP_USD} to ${MAX_TOPUP_USD}, at most 6 decimals. Paid with x402 for exactly that amount. ` +
      'Data: `{apiKey, prefix, balance, currency, warning}` for a new key, `{prefix, balance, currency, credited}` for a recharge. ' +
      'A payment with a `payment-identifier` id, sent again for the same top-up, gets the same answer (the same key), credited once.',
    '',
    `### \`GET ${CREDIT_PATHS.balance}\``,
    '',
    'Free. With `Authorization: Bearer <api key>`: `{"balance": "4.997000", "currency": "USD"}`.',
    '',
    '## Errors',
    '',
    errorTable(),
    '',
    'Answers also carry `x-request-id`; data answers carry `x-cache` (`UPSTREAM`, `CACHE` or `STALE` with `age`).',
    '',
    '## More',
    '',
    `- [OpenAPI 3.1](${baseUrl}${DOCUMENT_PATHS.openapi})`,
    `- [Agent set-up guide](${baseUrl}${DOCUMENT_PATHS.skill})`,
    `- [llms.txt](${baseUrl}${DOCUMENT_PATHS.llms})`,
    `- [x402 discovery](${baseUrl}${DOCUMENT_PATHS.x402Discovery})`,
    `- [MCP server](${baseUrl}${INTERACTIVE_PATHS.mcp})`,
    `- [Top-up page](${baseUrl}${INTERACTIVE_PATHS.topUpPage})`,
    '',
  ].join('\n');
}
