import { MIN_TOPUP_MICROS, PRICE_PER_CALL_MICROS } from '@appcat/contracts';
import { type PricedRoute, ROUTE_TABLES, type RouteTable } from '@appcat/routes';
import { type DocumentedError, errorsFor, messageMarkdown } from './error-catalogue.js';
import { type JsonSchema, routeParams } from './param-schemas.js';
import {
  API_VERSION,
  CREDIT_PATHS,
  DOCUMENT_PATHS,
  Headers,
  MAX_TOPUP_USD,
  MIN_TOPUP_USD,
  networksOf,
  PRICE_USD,
  routeGroup,
  serviceSummary,
  serviceTitle,
  usd,
} from './service-facts.js';

export type OpenApiDocument = Record<string, unknown> & {
  openapi: string;
  paths: Record<string, Record<string, OpenApiOperation>>;
};
export type OpenApiOperation = Record<string, unknown> & {
  operationId: string;
  parameters?: OpenApiParameter[];
  responses: Record<string, unknown>;
};
export interface OpenApiParameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required: boolean;
  description: string;
  schema: JsonSchema;
  example: unknown;
}

const ref = (kind: string, name: string) => ({ $ref: `#/components/${kind}/${name}` });
const JSON_TYPE = 'application/json';

/** `apps.search` → `appsSearch` */
export function operationIdOf(routeId: string): string {
  return routeId.replace(/\.(\w)/g, (_m, c: string) => c.toUpperCase());
}

/** The x402 terms of an operation, as an extension field (OpenAPI has no word for paying per call). */
function x402Terms(route: PricedRoute) {
  return {
    protocol: 'x402',
    x402Version: 2,
    scheme: 'exact',
    priceUsd: PRICE_USD,
    amount: route.price.toString(),
    asset: 'USDC (6 decimals: amount is in millionths of a USD)',
    networks: networksOf(route.networks).map(({ name, network }) => ({ name, network })),
    challengeHeader: Headers.paymentRequired,
    paymentHeader: Headers.paymentSignature,
    receiptHeader: Headers.paymentResponse,
    settlement: 'settled before the data is fetched; an upstream failure after settlement is not refunded',
  };
}

/** The responses an operation documents: success plus every error the catalogue lists for its scope. */
function responses(success: unknown, errors: DocumentedError[]): Record<string, unknown> {
  const out: Record<string, unknown> = { '200': success };
  for (const status of [...new Set(errors.map((e) => e.status))].sort((a, b) => a - b)) {
    out[String(status)] =
      status === 402 ? ref('responses', 'PaymentRequired') : errorResponse(errors.filter((e) => e.status === status));
  }
  return out;
}

function errorResponse(errors: DocumentedError[]) {
  return {
    description: errors.map((e) => `${messageMarkdown(e)}: ${e.when}`).join(' '),
    headers: { [Headers.requestId]: ref('headers', 'RequestId') },
    content: { [JSON_TYPE]: { schema: ref('schemas', 'ErrorEnvelope') } },
  };
}

function pricedOperation(route: PricedRoute): OpenApiOperation {
  const networks = networksOf(route.networks)
    .map((n) => `${n.name} (\`${n.network}\`)`)
    .join(', ');
  return {
    operationId: operationIdOf(route.id),
    summary: route.description,
    description:
      `${route.description}. Price: USD ${PRICE_USD} a call, paid with x402 (USDC on ${networks}) or drawn from a ` +
      'prepaid API key. Without either the answer is a 402 with the x402 challenge.',
    tags: [routeGroup(route)],
    parameters: [
      ...routeParams(route).map(({ name, in: location, required, description, schema, example }) => ({
        name,
        in: location,
        required,
        description,
        schema,
        example,
      })),
      IDEMPOTENCY_KEY_PARAMETER,
    ],
    security: [{ apiKey: [] }, { x402: [] }],
    'x-price-usd': PRICE_USD,
    'x-payment': x402Terms(route),
    responses: responses(
      {
        description: 'The data, passed through from the store. Charged.',
        headers: {
          [Headers.creditsRemaining]: ref('headers', 'CreditsRemaining'),
          [Headers.paymentResponse]: ref('headers', 'PaymentResponse'),
          [Headers.cache]: ref('headers', 'Cache'),
          age: ref('headers', 'Age'),
          [Headers.requestId]: ref('headers', 'RequestId'),
        },
        content: { [JSON_TYPE]: { schema: ref('schemas', 'CatalogEnvelope') } },
      },
      errorsFor('priced'),
    ),
  };
}

/** Stripe's convention, for credit-paid calls (x402 payments name a call with the payment-identifier extension instead). */
const IDEMPOTENCY_KEY_PARAMETER: OpenApiParameter = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Credit-paid calls: names this call for 24 hours, scoped to the API key. A retry with the same key and the same request gets the ' +
    'first charged answer again (data, headers) without a second charge; a failed call is not remembered (its retry is a fresh try); ' +
    'a duplicate sent while the first is running waits for it. ' +
    'The same key with another request is a 409 and charges nothing. x402 payments do the same with the `payment-identifier` extension.',
  schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7E]+$' },
  example: '8e03978e-40d5-43e8-bc93-6894a57f9324',
};

function balanceOperation(): OpenApiOperation {
  return {
    operationId: 'creditsBalance',
    summary: 'Remaining balance of an API key',
    description: 'Free. The balance of the key sent as `Authorization: Bearer <api key>`, in USD with six decimals.',
    tags: ['credits'],
    security: [{ apiKey: [] }],
    'x-price-usd': '0',
    responses: responses(
      {
        description: 'The balance.',
        headers: { [Headers.requestId]: ref('headers', 'RequestId') },
        content: { [JSON_TYPE]: { schema: envelopeOf(ref('schemas', 'Balance')) } },
      },
      errorsFor('balance'),
    ),
  };
}

function topUpOperation(): OpenApiOperation {
  return {
    operationId: 'creditsTopUp',
    summary: 'Buy prepaid credit with x402',
    description:
      `Buys \`amount\` USD of credit (${MIN_TOPUP_USD} to ${MAX_TOPUP_USD}) with an x402 payment of exactly that amount. ` +
      'Unpaid, the answer is a 402 challenge for that amount. Paid without Authorization it creates a new API key ' +
      'holding the amount (shown once); paid with `Authorization: Bearer <api key>` it recharges that key. A payment carrying ' +
      'the `payment-identifier` extension (offered, not required) is remembered for 24 hours: resending the same payment for the ' +
      'same top-up gets the first answer again, the new key included, settled and credited once; another payment under the same id is a 409.',
    tags: ['credits'],
    parameters: [
      {
        name: 'amount',
        in: 'query',
        required: true,
        description: `USD amount from ${MIN_TOPUP_USD} to ${MAX_TOPUP_USD}, at most 6 decimals.`,
        schema: { type: 'string', pattern: '^(0|[1-9][0-9]{0,11})(\\.[0-9]{1,6})?$' },
        example: '5',
      },
    ],
    security: [{ x402: [] }, { x402: [], apiKey: [] }],
    'x-price-usd': 'amount',
    'x-payment': {
      protocol: 'x402',
      x402Version: 2,
      scheme: 'exact',
      priceUsd: 'the amount parameter',
      amount: `amount × 1000000 (USD ${MIN_TOPUP_USD} is "${MIN_TOPUP_MICROS}")`,
      asset: 'USDC (6 decimals)',
      networks: networksOf('standard').map(({ name, network }) => ({ name, network })),
      challengeHeader: Headers.paymentRequired,
      paymentHeader: Headers.paymentSignature,
      receiptHeader: Headers.paymentResponse,
    },
    responses: responses(
      {
        description: 'Settled: a new key (shown once) or the recharged balance.',
        headers: {
          [Headers.paymentResponse]: ref('headers', 'PaymentResponse'),
          [Headers.requestId]: ref('headers', 'RequestId'),
        },
        content: {
          [JSON_TYPE]: { schema: envelopeOf({ oneOf: [ref('schemas', 'NewKey'), ref('schemas', 'Recharge')] }) },
        },
      },
      errorsFor('topup'),
    ),
  };
}

/** The envelope of a 200 whose `data` is `data`. */
function envelopeOf(data: JsonSchema): JsonSchema {
  return {
    type: 'object',
    required: ['status', 'message', 'data'],
    properties: { status: { const: 200 }, message: { const: 'ok' }, data },
  };
}

function components() {
  const header = (description: string, schema: JsonSchema = { type: 'string' }) => ({ description, schema });
  return {
    securitySchemes: {
      apiKey: {
        type: 'http',
        scheme: 'bearer',
        description: `A prepaid API key from POST ${CREDIT_PATHS.topUp}. Each priced call draws USD ${PRICE_USD}; no signing, no chain round trip.`,
      },
      x402: {
        type: 'apiKey',
        in: 'header',
        name: Headers.paymentSignature,
        description:
          'An x402 v2 payment: base64 of a PaymentPayload signing one `accepts` entry of the 402 challenge ' +
          `(\`${Headers.paymentRequired}\` header: scheme \`exact\`, USDC, amount "${PRICE_PER_CALL_MICROS}" for USD ${PRICE_USD}). ` +
          'Settled before delivery; the receipt comes back in `payment-response`. Any x402 v2 client (e.g. @x402/fetch) does this.',
      },
    },
    headers: {
      RequestId: header('The request id: yours if you sent a safe `x-request-id`, otherwise ours.'),
      CreditsRemaining: header('On credit-paid answers: the balance left, USD with six decimals ("4.997000").'),
      PaymentResponse: header('On x402-paid answers: base64 of the x402 SettleResponse (network, payer, transaction).'),
      PaymentRequired: header(
        'base64 of the x402 v2 PaymentRequired: one `exact` entry per network in `accepts`, Base first.',
      ),
      Cache: header(
        'Where the data came from: UPSTREAM, CACHE, or STALE (a cached copy served because the store failed).',
        {
          type: 'string',
          enum: ['UPSTREAM', 'CACHE', 'STALE'],
        },
      ),
      Age: header('With STALE: the age of the copy in seconds.', { type: 'integer', minimum: 0 }),
    },
    responses: {
      PaymentRequired: {
        description:
          '`payment_required` (no credentials), `topup_required` (the key cannot pay for the call) or the reason an x402 ' +
          'payment bought nothing. The challenge is in the `payment-required` header (not on `topup_required`).',
        headers: {
          [Headers.paymentRequired]: ref('headers', 'PaymentRequired'),
          [Headers.requestId]: ref('headers', 'RequestId'),
        },
        content: { [JSON_TYPE]: { schema: ref('schemas', 'ErrorEnvelope') } },
      },
    },
    schemas: {
      Envelope: {
        type: 'object',
        description: 'Every response: `status` repeats the HTTP status.',
        required: ['status', 'message', 'data'],
        properties: {
          status: { type: 'integer', description: 'The HTTP status.' },
          message: { type: 'string', description: '"ok" on success, otherwise the reason.' },
          data: { description: 'The payload; null on errors.' },
        },
      },
      ErrorEnvelope: {
        allOf: [ref('schemas', 'Envelope'), { type: 'object', properties: { data: { type: 'null' } } }],
      },
      CatalogPage: {
        type: 'object',
        description: "One page of the store's records, passed through.",
        required: ['resultCount', 'results'],
        properties: {
          resultCount: {
            type: 'integer',
            minimum: 0,
            description: 'Records in `results` (this page). 0 for an unknown id: still a paid 200.',
          },
          results: { type: 'array', items: { type: 'object' } },
        },
      },
      CatalogEnvelope: envelopeOf(ref('schemas', 'CatalogPage')),
      Balance: {
        type: 'object',
        required: ['balance', 'currency'],
        properties: { balance: { type: 'string', example: '4.997000' }, currency: { const: 'USD' } },
      },
      NewKey: {
        type: 'object',
        required: ['apiKey', 'prefix', 'balance', 'currency', 'warning'],
        properties: {
          apiKey: { type: 'string', description: 'The new key: shown this once, stored by us only as a hash.' },
          prefix: { type: 'string' },
          balance: { type: 'string', example: '5.000000' },
          currency: { const: 'USD' },
          warning: { type: 'string' },
        },
      },
      Recharge: {
        type: 'object',
        required: ['prefix', 'balance', 'currency', 'credited'],
        properties: {
          prefix: { type: 'string' },
          balance: { type: 'string' },
          currency: { const: 'USD' },
          credited: { type: 'string', example: '5.000000' },
        },
      },
    },
  };
}

/** The OpenAPI 3.1 document of the public API, from the route table and the public base URL. */
export function buildOpenApiDocument(baseUrl: string, table: RouteTable = ROUTE_TABLES.apple): OpenApiDocument {
  const paths: OpenApiDocument['paths'] = {};
  for (const route of table.routes) paths[route.path] = { get: pricedOperation(route) };
  paths[CREDIT_PATHS.balance] = { get: balanceOperation() };
  paths[CREDIT_PATHS.topUp] = { post: topUpOperation() };
  const groups = [...new Set(table.routes.map(routeGroup))];
  return {
    openapi: '3.1.0',
    info: {
      title: serviceTitle(table),
      version: API_VERSION,
      summary: `${table.storeName} data for agents, USD ${PRICE_USD} a call (x402 or prepaid credits).`,
      description: `${serviceSummary(table)}\n\nOther documents: ${Object.values(DOCUMENT_PATHS)
        .map((p) => baseUrl + p)
        .join(', ')}.`,
    },
    servers: [{ url: baseUrl }],
    security: [{ apiKey: [] }, { x402: [] }],
    tags: [
      ...groups.map((name) => ({ name, description: `Priced: USD ${PRICE_USD} a call.` })),
      {
        name: 'credits',
        description: `Prepaid credit: buy a key with x402 (USD ${MIN_TOPUP_USD}–${MAX_TOPUP_USD}), read its balance free.`,
      },
    ],
    paths,
    components: components(),
    'x-price-per-call-usd': usd(PRICE_PER_CALL_MICROS),
  };
}
