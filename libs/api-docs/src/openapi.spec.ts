import { PRICE_PER_CALL_MICROS } from '@appcat/contracts';
import { ParamDefaults, ParamLimits, PRICED_ROUTES } from '@appcat/routes';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { buildOpenApiDocument, type OpenApiParameter } from './openapi.js';

const BASE = 'https://appcat.test';
const doc = buildOpenApiDocument(BASE);
const operation = (path: string, method = 'get') => doc.paths[path][method];
const param = (path: string, name: string) =>
  operation(path).parameters?.find((p: OpenApiParameter) => p.name === name);

describe('OpenAPI document', () => {
  it('passes the Redocly linter with the recommended rules: no errors, no warning but the absent licence', async () => {
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source: JSON.stringify(doc), absoluteRef: `${BASE}/openapi.json`, config });
    expect(problems.filter((p) => p.severity === 'error')).toEqual([]);
    // The service is not published under a licence; saying otherwise to silence the rule would be false.
    expect(problems.map((p) => p.ruleId)).toEqual(['info-license']);
  });

  it('is OpenAPI 3.1 at interface version 1.0.0, served from the configured base URL', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info).toMatchObject({ version: '1.0.0' });
    expect(doc.servers).toEqual([{ url: BASE }]);
    expect(JSON.stringify(buildOpenApiDocument('https://other.test/base'))).not.toContain(BASE);
  });

  it('has exactly the priced routes and the two credit routes', () => {
    expect(Object.keys(doc.paths).sort()).toEqual(
      [...PRICED_ROUTES.map((r) => r.path), '/api/credits/balance', '/api/credits/topup'].sort(),
    );
    expect(Object.keys(doc.paths['/api/credits/topup'])).toEqual(['post']);
    for (const route of PRICED_ROUTES) expect(Object.keys(doc.paths[route.path])).toEqual(['get']);
  });

  it.each(PRICED_ROUTES.map((r) => [r.path, r] as const))(
    '%s: its parameters, in order, path ones required',
    (path, route) => {
      const params = operation(path).parameters ?? [];
      expect(params.map((p) => [p.name, p.in])).toEqual([
        ...route.pathParams.map((n) => [n, 'path']),
        ...route.queryParams.map((n) => [n, 'query']),
        ['Idempotency-Key', 'header'],
      ]);
      for (const p of params) expect(p.required).toBe(p.in === 'path' || p.name === 'term');
      expect(params.at(-1)!.schema).toEqual({
        type: 'string',
        minLength: 1,
        maxLength: 255,
        pattern: '^[\\x21-\\x7E]+$',
      });
    },
  );

  it.each(PRICED_ROUTES.map((r) => [r.path, r] as const))(
    '%s: priced at USD 0.003 (3000 atomic), x402 exact on its networks or a key',
    (path, route) => {
      const op = operation(path);
      expect(op['x-price-usd']).toBe('0.003');
      expect(op['x-payment']).toMatchObject({
        protocol: 'x402',
        x402Version: 2,
        scheme: 'exact',
        priceUsd: '0.003',
        amount: String(PRICE_PER_CALL_MICROS),
      });
      const networks = (op['x-payment'] as { networks: { network: string }[] }).networks.map((n) => n.network);
      expect(networks[0]).toBe('eip155:8453');
      expect(networks).toEqual(
        route.networks === 'extended'
          ? ['eip155:8453', 'eip155:143', 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp', 'eip155:137', 'eip155:42161']
          : ['eip155:8453', 'eip155:143', 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp'],
      );
      expect(op.security).toEqual([{ apiKey: [] }, { x402: [] }]);
    },
  );

  it.each(PRICED_ROUTES.map((r) => [r.path]))(
    '%s: documents every status of a priced call, the 402 with its challenge header',
    (path) => {
      const { responses } = operation(path);
      // The spec's table (200, 400, 401, 402, 502), the gateway's 500, and 409 for a reused Idempotency-Key or payment-identifier.
      expect(Object.keys(responses)).toEqual(['200', '400', '401', '402', '409', '500', '502']);
      expect(JSON.stringify(responses['402'])).toContain('PaymentRequired');
      const components = doc.components as { responses: Record<string, { headers: Record<string, unknown> }> };
      expect(Object.keys(components.responses.PaymentRequired.headers)).toContain('payment-required');
    },
  );

  it('describes the credit routes: the free balance read and the x402-paid top-up with its amount', () => {
    expect(Object.keys(operation('/api/credits/balance').responses)).toEqual(['200', '401', '500', '502']);
    const topUp = operation('/api/credits/topup', 'post');
    expect(topUp.parameters).toEqual([expect.objectContaining({ name: 'amount', in: 'query', required: true })]);
    // 409: a payment-identifier reused for another payment.
    expect(Object.keys(topUp.responses)).toEqual(['200', '400', '401', '402', '409', '500', '502']);
  });

  it('has parameter constraints equal to ParamLimits and defaults equal to ParamDefaults', () => {
    expect(param('/api/apps', 'term')?.schema).toMatchObject({ minLength: 1, maxLength: ParamLimits.termMaxLength });
    expect(param('/api/apps', 'page')?.schema).toMatchObject({
      type: 'integer',
      minimum: 1,
      maximum: ParamLimits.searchMaxPage,
      default: ParamDefaults.page,
    });
    expect(param('/api/apps/{appId}/reviews', 'page')?.schema).toMatchObject({ maximum: ParamLimits.reviewsMaxPage });
    expect(param('/api/apps', 'country')?.schema).toMatchObject({ default: ParamDefaults.country });
    expect(param('/api/apps', 'lang')?.schema).toMatchObject({
      maxLength: ParamLimits.langMaxLength,
      pattern: ParamLimits.langPattern.source,
    });
    expect(param('/api/bundles/{bundleId}/reviews', 'sort')?.schema).toEqual({
      type: 'string',
      enum: [...ParamLimits.sortValues],
      default: ParamDefaults.sort,
    });
    expect(param('/api/apps/{appId}', 'appId')?.schema).toMatchObject({
      maxLength: ParamLimits.idMaxLength,
      pattern: ParamLimits.bundleIdentifierPattern.source,
    });
    expect(param('/api/bundles/{bundleId}', 'bundleId')?.schema).toMatchObject({
      pattern: ParamLimits.numericIdPattern.source,
    });
    expect(param('/api/developers/{developerId}', 'developerId')?.schema).toMatchObject({
      pattern: ParamLimits.numericIdPattern.source,
    });
  });

  it('uses the envelope {status, message, data} for every answer', () => {
    const schemas = (doc.components as { schemas: Record<string, { required?: string[] }> }).schemas;
    expect(schemas.Envelope.required).toEqual(['status', 'message', 'data']);
    for (const path of Object.keys(doc.paths)) {
      for (const op of Object.values(doc.paths[path])) {
        for (const [status, response] of Object.entries(op.responses)) {
          const text = JSON.stringify(response);
          expect([status, /Envelope|PaymentRequired|"required":\["status","message","data"\]/.test(text)]).toEqual([
            status,
            true,
          ]);
        }
      }
    }
  });
});
