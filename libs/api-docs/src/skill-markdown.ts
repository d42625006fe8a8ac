import { formatUsd, PRICE_PER_CALL_MICROS } from '@appcat/contracts';
import { MCP_BALANCE_TOOL_NAME, mcpToolName, ROUTE_TABLES, type RouteTable } from '@appcat/routes';
import { errorTable, paramSummary } from './markdown-parts.js';
import {
  CREDIT_PATHS,
  DOCUMENT_PATHS,
  INTERACTIVE_PATHS,
  exampleUrlPath,
  FAILED_CALL_RULE,
  extendedOnlyNetworkNames,
  Headers,
  MAX_TOPUP_USD,
  MIN_TOPUP_USD,
  networkNames,
  PRICE_USD,
  routeCount,
  SERVICE_NAME,
} from './service-facts.js';

/**
 * /skill.md: the set-up guide an agent follows. YAML front matter (name, description) as skill files
 * carry it, then: what to call, paying with x402 through the official client, buying and using a key,
 * prices, and every error with what to do about it.
 */
export function buildSkillMarkdown(baseUrl: string, table: RouteTable = ROUTE_TABLES.apple): string {
  const routeLines = table.routes.map((r) => `| \`GET ${r.path}\` | ${r.description} | ${paramSummary(r)} |`);
  return [
    '---',
    `name: ${SERVICE_NAME}`,
    `description: Look up ${table.storeName} ${table.covers} for USD ${PRICE_USD} a call, paid with x402 (USDC) or a prepaid API key.`,
    '---',
    '',
    `# ${SERVICE_NAME}: ${table.storeName} data for agents`,
    '',
    `Base URL: \`${baseUrl}\`. ${routeCount(table, '`GET` route')}, USD ${PRICE_USD} each. Every answer is JSON ` +
      '`{"status", "message", "data"}`: `status` is the HTTP status, `message` is `"ok"` or the reason, `data` the payload (`null` on errors).',
    '',
    '## What you can call',
    '',
    '| route | returns | query |',
    '|---|---|---|',
    ...routeLines,
    '',
    `Rules and defaults of each parameter: [${DOCUMENT_PATHS.catalogue}](${baseUrl}${DOCUMENT_PATHS.catalogue}) or ` +
      `[${DOCUMENT_PATHS.openapi}](${baseUrl}${DOCUMENT_PATHS.openapi}). An invalid parameter is a \`400\` naming it, and is never charged. ` +
      "`data` is one page of the store's records, `{resultCount, results}`; an id the store does not know is a paid `200` with `resultCount: 0`.",
    '',
    '## Pay per call with x402 (no account)',
    '',
    `Use the official client \`@x402/fetch\`: it answers the \`402\` by signing one entry of the \`${Headers.paymentRequired}\` challenge ` +
      `and retrying with \`${Headers.paymentSignature}\`. USDC on ${networkNames('standard')} (the developers route also ` +
      `${extendedOnlyNetworkNames()}); gas is sponsored, the wallet needs only USDC.`,
    '',
    '```sh',
    'npm install @x402/fetch @x402/evm viem',
    '```',
    '',
    '```ts',
    "import { wrapFetchWithPayment, x402Client } from '@x402/fetch';",
    "import { registerExactEvmScheme } from '@x402/evm/exact/client';",
    "import { privateKeyToAccount } from 'viem/accounts';",
    '',
    'const client = new x402Client();',
    'registerExactEvmScheme(client, { signer: privateKeyToAccount(process.env.PAYER_PRIVATE_KEY as `0x${string}`) });',
    'const paidFetch = wrapFetchWithPayment(fetch, client);',
    '',
    `const response = await paidFetch('${baseUrl}${exampleUrlPath(table.routes[0])}');`,
    'const { status, message, data } = await response.json(); // 200, "ok", { resultCount, results }',
    '```',
    '',
    `For Solana register \`registerExactSvmScheme\` from \`@x402/svm/exact/client\` with a Solana signer. The payment is settled ` +
      `before the data is fetched; the answer carries the receipt in \`${Headers.paymentResponse}\` (base64 SettleResponse: network, ` +
      'payer, transaction). A payload is delivered at most once: sign a new one for every call (the client does).',
    '',
    '## Or buy a key and skip the signing',
    '',
    `1. Buy credit with the same paying fetch: \`POST ${CREDIT_PATHS.topUp}?amount=5\` (USD ${MIN_TOPUP_USD} to ${MAX_TOPUP_USD}). ` +
      '`data.apiKey` is your key, **shown once**: store it.',
    '',
    '   ```ts',
    `   const topUp = await paidFetch('${baseUrl}${CREDIT_PATHS.topUp}?amount=5', { method: 'POST' });`,
    '   const apiKey = (await topUp.json()).data.apiKey;',
    '   ```',
    '',
    `2. Send it on every call: \`Authorization: Bearer <api key>\`. Each call draws USD ${PRICE_USD}; the answer's ` +
      `\`${Headers.creditsRemaining}\` header says what is left.`,
    '',
    '   ```sh',
    `   curl -H "Authorization: Bearer $APPCAT_KEY" "${baseUrl}${exampleUrlPath(table.routes[0])}"`,
    `   curl -H "Authorization: Bearer $APPCAT_KEY" "${baseUrl}${CREDIT_PATHS.balance}"   # free: {"balance": "4.997000", "currency": "USD"}`,
    '   ```',
    '',
    `3. When a call answers \`402 topup_required\`, recharge the same key: the top-up with \`Authorization: Bearer <api key>\` adds the amount to it.`,
    '',
    'Never send a key and an x402 payment on the same call (that is a `400`).',
    '',
    '## Retry without paying twice',
    '',
    '- With a key: send `Idempotency-Key: <1 to 255 visible ASCII characters, e.g. a UUID>`. A retry with the same key and the same ' +
      'request within 24 hours gets the first charged answer again (data, `x-credits-remaining`) without a second charge; a failed ' +
      'call is not remembered, so its retry is a fresh try; a duplicate ' +
      'sent while the first is still running waits for it. The same key with another request is a `409`, charging nothing. Keys are ' +
      'per API key. MCP: send the header on the connection.',
    '- With x402: every 402 offers the `payment-identifier` extension (not required). Put an id in the payment ' +
      '(`appendPaymentIdentifierToExtensions` from `@x402/extensions/payment-identifier`) and, if the answer is lost (a timeout), ' +
      'retry with **the same payload**: you get the first answer and receipt again, settled once. A new payload under the same id, or the ' +
      'same one sent for another route or other parameters, is a `409`. ' +
      'Top-ups too: a lost answer to a paid top-up, retried with the same payload, gives back the same key, credited once.',
    '- A call that fails (the store down or answering nonsense, one of our services failing) is a `502` ending "nothing was charged", ' +
      'with `Retry-After` when the store said when to come back: wait that long and retry.',
    '',
    `A person can also buy or recharge a key in a browser with a wallet: ${baseUrl}${INTERACTIVE_PATHS.topUpPage}.`,
    '',
    '## Or call it as MCP tools',
    '',
    `\`${baseUrl}${INTERACTIVE_PATHS.mcp}\` is an MCP server (Streamable HTTP) with one tool per route — ${table.routes.map((r) => `\`${mcpToolName(r)}\``).join(', ')} — ` +
      `plus the free \`${MCP_BALANCE_TOOL_NAME}\`. Tool arguments are the route's parameters with the same rules; results carry the same \`data\`. ` +
      `Send your key as \`Authorization: Bearer <api key>\` on the connection and each call draws USD ${PRICE_USD}; without one, a paid tool answers ` +
      `with the x402 PaymentRequired as its error result: sign one of its \`accepts\` and call again with the payload in \`_meta["x402/payment"]\`; ` +
      'the receipt comes back in `_meta["x402/payment-response"]`.',
    '',
    '## Prices',
    '',
    `- Every priced call: USD ${PRICE_USD} (\`${formatUsd(PRICE_PER_CALL_MICROS)}\` USD; x402 \`amount: "${PRICE_PER_CALL_MICROS}"\` in USDC's 6 decimals).`,
    `- Balance: free. Top-up: exactly the \`amount\` you ask for, USD ${MIN_TOPUP_USD} to ${MAX_TOPUP_USD}.`,
    `- No plans and no rate limits. ${FAILED_CALL_RULE}`,
    '',
    '## Errors and what to do',
    '',
    errorTable(),
    '',
    'Every answer carries `x-request-id`; quote it when something looks wrong.',
    '',
  ].join('\n');
}
