/*
 * The MCP tools' input schemas against the validator the calls really go through: on random
 * arguments of the declared types, a JSON Schema validator (the SDK's ajv) and validateRouteInput
 * must agree, except for the rule a schema cannot say (an assigned ISO country code) — where only the
 * server refuses. A blank term the schema refuses too (`pattern: "\\S"`).
 */
import { ROUTE_TABLES, validateRouteInput } from '@appcat/routes';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import fc from 'fast-check';
import { HttpError } from '../src/errors/http-error.js';
import { pricedTools, toRouteInput } from '../src/mcp/mcp-tools.js';

/** Every store's tools, as each store's address lists them. */
const TOOLS = new Map(
  Object.values(ROUTE_TABLES).flatMap((table) =>
    [...pricedTools(table.routes)].map(([name, tool]) => [`${table.store} ${name}`, tool] as const),
  ),
);

const ARGUMENT: Record<string, fc.Arbitrary<unknown>> = {
  term: fc.oneof(fc.constantFrom('chess', '  ', '', 'x'.repeat(200), 'x'.repeat(201)), fc.string({ maxLength: 210 })),
  page: fc.integer({ min: -2, max: 15 }),
  country: fc.oneof(fc.constantFrom('us', 'GB', 'xx', 'u', 'usa', ''), fc.string({ maxLength: 3 })),
  lang: fc.oneof(
    fc.constantFrom('en-us', 'ja_JP', 'zh-hant-tw', 'e', 'en-', 'x'.repeat(36)),
    fc.string({ maxLength: 40 }),
  ),
  sort: fc.oneof(fc.constantFrom('recent', 'helpful', 'newest', 'RECENT'), fc.string({ maxLength: 8 })),
  appId: fc.oneof(
    fc.constantFrom('284882215', 'com.facebook.Facebook', '../x', '0', 'a'.repeat(155), 'a'.repeat(156)),
    fc.string({ maxLength: 160 }),
    fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9._-]{0,160}$/),
  ),
  bundleId: fc.oneof(fc.stringMatching(/^\d{1,21}$/), fc.string({ maxLength: 5 })),
  developerId: fc.oneof(
    fc.stringMatching(/^\d{1,21}$/),
    fc.string({ maxLength: 5 }),
    fc.constantFrom('Google LLC', ' Mojang', '5700313618786177705'),
  ),
  chart: fc.oneof(
    fc.constantFrom('top-free', 'top-paid', 'top-grossing', 'Top-Free', 'top', ''),
    fc.string({ maxLength: 12 }),
  ),
  genre: fc.oneof(fc.constantFrom('6014', '7012', '7010', '6019', '36', ''), fc.stringMatching(/^\d{1,5}$/)),
};

/** What only the server can check. */
const SERVER_ONLY = new Set(['country must be an ISO 3166-1 alpha-2 country code such as us']);

describe('MCP tool input schemas', () => {
  const ajv = new AjvJsonSchemaValidator();

  it.each([...TOOLS.keys()])('%s: the schema and validateRouteInput agree on random arguments', (name) => {
    const tool = TOOLS.get(name)!;
    const schemaAccepts = ajv.getValidator(tool.definition.inputSchema as never);
    const params = [...tool.route.pathParams, ...tool.route.queryParams];
    const args = fc.record(Object.fromEntries(params.map((p) => [p, ARGUMENT[p]])), { requiredKeys: [] });
    fc.assert(
      fc.property(args, (input) => {
        let verdict: { ok: true } | { ok: false; message: string };
        try {
          const { pathParams, query } = toRouteInput(tool, input);
          verdict = validateRouteInput(tool.route, pathParams as Record<string, string>, query);
        } catch (error) {
          if (!(error instanceof HttpError)) throw error;
          verdict = { ok: false, message: error.message };
        }
        const schemaOk = schemaAccepts(input).valid;
        if (verdict.ok) expect(schemaOk).toBe(true);
        else if (schemaOk) expect(SERVER_ONLY).toContain(verdict.message);
      }),
      { numRuns: 500 },
    );
  });

  it('every schema names its parameters, requires exactly the ones the route needs, and takes integers for pages', () => {
    for (const tool of TOOLS.values()) {
      const schema = tool.definition.inputSchema as {
        properties: Record<string, { type: string; description: string }>;
        required: string[];
      };
      expect(Object.keys(schema.properties)).toEqual([...tool.route.pathParams, ...tool.route.queryParams]);
      expect(schema.required).toEqual([
        ...tool.route.pathParams,
        ...(tool.route.queryParams.includes('term') ? ['term'] : []),
      ]);
      for (const property of Object.values(schema.properties)) expect(property.description.length).toBeGreaterThan(10);
      if (schema.properties.page) expect(schema.properties.page.type).toBe('integer');
    }
  });

  it('refuses a Google Play developer id sent as a number too large to keep its digits, and takes it as a string', () => {
    const tool = pricedTools(ROUTE_TABLES['google-play'].routes).get('developers_get')!;
    // What JSON.parse makes of the id sent as a number: 5700313618786177800.
    expect(() => toRouteInput(tool, { developerId: Number('5700313618786177705') })).toThrow(
      'developerId must be a string: a number this large loses digits',
    );
    expect(toRouteInput(tool, { developerId: '5700313618786177705' }).pathParams).toEqual({
      developerId: '5700313618786177705',
    });
  });
});
