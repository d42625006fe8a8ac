import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { ISO_COUNTRY_CODES } from './countries.js';
import { ParamLimits } from './param-rules.js';
import { type JsonSchema, routeParamSchemas } from './param-schemas.js';
import { ALL_PRICED_ROUTES, PRICED_ROUTES, type PricedRoute, type RouteParams } from './route-table.js';
import { type RawQuery, type RouteInputResult, validateRouteInput } from './validate-route-input.js';
import { validateRouteInputReference } from '../test/validate-route-input.reference.js';

const LONE = 'must be well-formed Unicode text: it holds a lone UTF-16 surrogate';
const byId = (id: string): PricedRoute => PRICED_ROUTES.find((r) => r.id === id)!;
const check = (id: string, path: Record<string, string>, query: Record<string, string | string[]>) =>
  validateRouteInput(byId(id), path, query);

describe('validateRouteInput', () => {
  it('has the nine routes of the spec and the five store-fact routes, each priced at 3000 µUSD', () => {
    expect(PRICED_ROUTES.map((r) => r.path)).toEqual([
      '/api/apps',
      '/api/apps/{appId}',
      '/api/apps/{appId}/reviews',
      '/api/apps/{appId}/similar',
      '/api/bundles',
      '/api/bundles/{bundleId}',
      '/api/bundles/{bundleId}/reviews',
      '/api/bundles/{bundleId}/similar',
      '/api/developers/{developerId}',
      '/api/apps/{appId}/ratings',
      '/api/apps/{appId}/privacy',
      '/api/apps/{appId}/versions',
      '/api/charts/{chart}',
      '/api/suggestions',
    ]);
    expect(new Set(PRICED_ROUTES.map((r) => r.price))).toEqual(new Set([3000n]));
  });

  it.each([
    ['apps.search', {}, {}, 'term is required'],
    ['apps.search', {}, { term: '' }, 'term is required'],
    ['apps.search', {}, { term: '   ' }, 'term must not be empty'],
    ['apps.search', {}, { term: 'x'.repeat(201) }, 'term must be at most 200 characters'],
    ['apps.search', {}, { term: ['a', 'b'] }, 'term must be given only once'],
    ['apps.search', {}, { term: 'chess', page: '0' }, 'page must be an integer from 1 to 10'],
    ['charts.get', { chart: 'top-new' }, {}, 'chart must be one of: top-free, top-paid, top-grossing'],
    ['charts.get', { chart: 'TOP-FREE' }, {}, 'chart must be one of: top-free, top-paid, top-grossing'],
    [
      'charts.get',
      { chart: 'top-free' },
      { genre: '7010' },
      'genre must be an App Store genre id such as 6014 (Games)',
    ],
    [
      'charts.get',
      { chart: 'top-free' },
      { genre: 'games' },
      'genre must be an App Store genre id such as 6014 (Games)',
    ],
    ['charts.get', { chart: 'top-paid' }, { page: '11' }, 'page must be an integer from 1 to 10'],
    [
      'charts.get',
      { chart: 'top-paid' },
      { country: 'zz' },
      'country must be an ISO 3166-1 alpha-2 country code such as us',
    ],
    ['suggestions.search', {}, {}, 'term is required'],
    ['suggestions.search', {}, { term: '  ' }, 'term must not be empty'],
    [
      'apps.ratings',
      { appId: 'not an id' },
      {},
      'appId must be a numeric App Store id or a bundle identifier such as com.example.app',
    ],
    ['apps.search', {}, { term: 'chess', page: '1.5' }, 'page must be an integer from 1 to 10'],
    ['apps.search', {}, { term: 'chess', page: '11' }, 'page must be an integer from 1 to 10'],
    [
      'apps.search',
      {},
      { term: 'chess', country: 'zz' },
      'country must be an ISO 3166-1 alpha-2 country code such as us',
    ],
    ['apps.search', {}, { term: 'chess', lang: 'english!' }, 'lang must be a language tag such as en-us'],
    ['apps.reviews', { appId: '1' }, { sort: 'newest' }, 'sort must be one of: recent, helpful'],
    ['apps.reviews', { appId: '1' }, { page: '11' }, 'page must be an integer from 1 to 10'],
    [
      'apps.get',
      { appId: '../../etc' },
      {},
      'appId must be a numeric App Store id or a bundle identifier such as com.example.app',
    ],
    ['apps.get', { appId: 'x'.repeat(156) }, {}, 'appId must be at most 155 characters'],
    ['bundles.get', { bundleId: 'com.example' }, {}, 'bundleId must be a numeric App Store bundle id'],
    ['developers.get', { developerId: '12a' }, {}, 'developerId must be a numeric App Store developer id'],
    ['apps.search', {}, { term: 'chess \ud800' }, `term ${LONE}`],
    ['apps.search', {}, { term: '\udc00\ud83d' }, `term ${LONE}`],
    ['apps.search', {}, { term: 'chess', lang: 'en\udfff' }, `lang ${LONE}`],
    ['apps.get', { appId: '\ud800' }, {}, `appId ${LONE}`],
    ['apps.reviews', { appId: '1' }, { sort: 'recent\udbff' }, `sort ${LONE}`],
  ])('%s %j %j → 400 "%s"', (id, path, query, message) => {
    expect(check(id, path, query)).toEqual({ ok: false, message });
  });

  it('accepts surrogate pairs, and checks a lone surrogate in documented order with the other rules', () => {
    expect(check('apps.search', {}, { term: 'chess \ud83d\ude00' }).ok).toBe(true);
    expect(check('apps.search', {}, { term: ' ', lang: '\ud800' })).toEqual({
      ok: false,
      message: 'term must not be empty',
    });
  });

  it('reports the path parameter before the query', () => {
    expect(check('apps.reviews', { appId: '/' }, { sort: 'bad' })).toMatchObject({
      ok: false,
      message: expect.stringMatching(/^appId/),
    });
  });

  it('accepts valid input, ignores unknown parameters and normalises it for the catalog', () => {
    const result = check(
      'apps.search',
      {},
      { term: ' chess ', country: 'GB', lang: 'en_GB', page: '2', utm: ['a', 'b'] },
    );
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(byId('apps.search').toCatalogQuery(result.params)).toEqual({
      route: 'apps.search',
      term: 'chess',
      page: 2,
      country: 'gb',
      lang: 'en-gb',
    });
  });

  it('applies defaults', () => {
    const result = check('apps.reviews', { appId: 'com.facebook.Facebook' }, {});
    expect(result.ok && byId('apps.reviews').toCatalogQuery(result.params)).toEqual({
      route: 'apps.reviews',
      appId: 'com.facebook.Facebook',
      page: 1,
      country: 'us',
      sort: 'recent',
    });
  });
});

/** Values a parameter may arrive with: valid ones, each rule's edges, and arbitrary text. */
const EDGE_VALUES = [
  '',
  ' ',
  '   ',
  '\t\n',
  '\u00a0',
  '\u200b',
  'x',
  ' chess ',
  'x'.repeat(ParamLimits.termMaxLength),
  'x'.repeat(ParamLimits.termMaxLength + 1),
  'x'.repeat(ParamLimits.termMaxLength) + '\uFE0F',
  '\u2764\uFE0F'.repeat(ParamLimits.termMaxLength / 2 + 1),
  ' '.repeat(ParamLimits.termMaxLength + 1),
  'é'.repeat(ParamLimits.termMaxLength),
  '😀'.repeat(ParamLimits.termMaxLength / 2 + 1),
  '0',
  '1',
  '01',
  '2',
  '9',
  '10',
  '11',
  '99',
  '100',
  '999',
  '1000',
  '1.5',
  '-1',
  '+1',
  ' 1',
  '1 ',
  '1e1',
  '٣',
  'us',
  'US',
  'Us',
  'gb',
  'zz',
  'u',
  'usa',
  '\u212Ae', // KELVIN SIGN + e: lower-cases to "ke", an assigned code
  'e\u212A',
  'İs',
  'en',
  'en-us',
  'en_US',
  'zh-hant-tw',
  'zh-hant-tw-x1',
  'e',
  'en-',
  'english!',
  'abc-' + 'a'.repeat(8) + '-' + 'b'.repeat(8) + '-' + 'c'.repeat(8),
  'a'.repeat(ParamLimits.langMaxLength + 1),
  'recent',
  'helpful',
  'RECENT',
  'newest',
  '284882215',
  '1482985563',
  '1'.repeat(19),
  '1'.repeat(20),
  '0123',
  'com.facebook.Facebook',
  'com.example.app',
  '.com',
  '-abc',
  '_abc',
  'a b',
  '../../etc',
  '/',
  'a'.repeat(ParamLimits.idMaxLength),
  'a'.repeat(ParamLimits.idMaxLength + 1),
  '$value $property $target $constraint1',
  '\ud800',
  'chess\udc00',
  '\udc00\ud800',
];

const stringValue = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...EDGE_VALUES) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(...ISO_COUNTRY_CODES).chain((code) => fc.constantFrom(code, code.toUpperCase())),
  },
  { weight: 1, arbitrary: fc.stringMatching(ParamLimits.langPattern) },
  { weight: 1, arbitrary: fc.stringMatching(ParamLimits.bundleIdentifierPattern) },
  { weight: 1, arbitrary: fc.stringMatching(ParamLimits.numericIdPattern) },
  { weight: 1, arbitrary: fc.integer({ min: -5, max: 1005 }).map(String) },
  { weight: 1, arbitrary: fc.string({ maxLength: 8 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 210 }) },
  // 'binary' never holds a lone surrogate: one at a random place.
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.string({ maxLength: 8 }), fc.integer({ min: 0xd800, max: 0xdfff }), fc.string({ maxLength: 8 }))
      .map(([before, unit, after]) => before + String.fromCharCode(unit) + after),
  },
);

/** A query value: missing, once, or repeated (HTTP servers give arrays, even of one). */
const queryValue: fc.Arbitrary<string | string[] | undefined> = fc.oneof(
  { weight: 2, arbitrary: fc.constant(undefined) },
  { weight: 6, arbitrary: stringValue },
  { weight: 1, arbitrary: fc.array(stringValue, { maxLength: 3 }) },
);

/** Every parameter name of any route, and one of none, so routes also get parameters they ignore. */
const ANY_NAME = [...new Set(ALL_PRICED_ROUTES.flatMap((r) => [...r.pathParams, ...r.queryParams])), 'utm_source'];

/** Random path parameters of `route` (each may be missing) and a random query over every route's parameter names. */
function randomInput(route: PricedRoute) {
  const pathParams = fc.record(
    Object.fromEntries(route.pathParams.map((name) => [name, fc.option(stringValue, { nil: undefined, freq: 8 })])),
    { requiredKeys: [] },
  );
  const query = fc.dictionary(fc.constantFrom(...ANY_NAME), queryValue, { maxKeys: 6 });
  return { pathParams, query };
}

/** Each parameter of `route` given each edge value, and none, the other parameters valid. */
function edgeInputs(
  route: PricedRoute,
): { name: string; value: unknown; path: Record<string, string>; query: RawQuery }[] {
  const valid: Record<string, string> = {
    term: 'chess',
    appId: '284882215',
    bundleId: '1482985563',
    developerId: '284882218',
  };
  const path = Object.fromEntries(route.pathParams.map((name) => [name, valid[name]]));
  const query: RawQuery = Object.fromEntries(
    route.queryParams.filter((name) => valid[name]).map((name) => [name, valid[name]]),
  );
  const inputs = [];
  for (const name of [...route.pathParams, ...route.queryParams]) {
    for (const value of [...EDGE_VALUES, undefined, null]) {
      // null and undefined stand for what a server may hand over; the types say string.
      const given = value as string;
      inputs.push(
        route.pathParams.includes(name)
          ? { name, value, path: { ...path, [name]: given }, query }
          : { name, value, path, query: { ...query, [name]: given } },
      );
    }
  }
  return inputs;
}

describe('validateRouteInput against class-validator', () => {
  it.each(ALL_PRICED_ROUTES.map((r) => [r.id, r] as const))(
    '%s: the same result and message as validateSync on random input',
    (_id, route) => {
      const { pathParams, query } = randomInput(route);
      fc.assert(
        fc.property(pathParams, query, (path, raw) => {
          const params = path as Record<string, string>;
          expect(validateRouteInput(route, params, raw as RawQuery)).toStrictEqual(
            validateRouteInputReference(route, params, raw as RawQuery),
          );
        }),
        { numRuns: 3000 },
      );
    },
  );

  it.each(ALL_PRICED_ROUTES.map((r) => [r.id, r] as const))(
    '%s: the same result and message on every edge value of every parameter',
    (_id, route) => {
      for (const { name, value, path, query } of edgeInputs(route)) {
        expect([name, value, validateRouteInput(route, path, query)]).toStrictEqual([
          name,
          value,
          validateRouteInputReference(route, path, query),
        ]);
      }
    },
  );
});

/*
 * The documents promise what the generated JSON Schemas say (routeParamSchemas: OpenAPI, the MCP tool
 * input schemas, the bazaar). Held against them by a JSON Schema validator (Ajv), validateRouteInput
 * accepts exactly what they accept, and a refusal names the first parameter they rule out, path
 * before query, in documented order; a repeated query parameter is refused before any rule, being no
 * value at all. What a schema does not say, stated here:
 * - country: the assigned codes. The schema says two letters, the description "one of the assigned
 *   codes"; the validator looks up the value lower-cased, so a KELVIN SIGN (U+212A) reads as k too.
 * - a length limit where the value has a variation selector (U+FE0E, U+FE0F): class-validator's
 *   MaxLength (validator.js isLength) counts a character and its selector as one, JSON Schema as two.
 * - a lone UTF-16 surrogate: a schema's string is Unicode text, which cannot hold one; Ajv takes it as
 *   a string like any other.
 */
const ajv = new Ajv2020({ strict: true });

interface DocumentedParam {
  name: string;
  in: 'path' | 'query';
  required: boolean;
  integer: boolean;
  accepts: ValidateFunction;
  withoutMaxLength: ValidateFunction;
  maxLength: number | undefined;
}

const DOCUMENTED = new Map(
  ALL_PRICED_ROUTES.map((route) => {
    const { path, query } = routeParamSchemas(route);
    const params = (['path', 'query'] as const).flatMap((where) => {
      const object = where === 'path' ? path : query;
      return Object.entries(object.properties).map(([name, schema]): DocumentedParam => {
        const { maxLength, ...rest } = schema as JsonSchema & { maxLength?: number };
        return {
          name,
          in: where,
          required: object.required.includes(name),
          integer: schema.type === 'integer',
          accepts: ajv.compile(schema),
          withoutMaxLength: ajv.compile(rest),
          maxLength,
        };
      });
    });
    return [route, params] as const;
  }),
);

/** validator.js isLength's count: UTF-16 units less surrogate pairs and presentation sequences. */
function validatorLength(value: string): number {
  return (
    value.length -
    (value.match(/[^\uFE0F\uFE0E][\uFE0F\uFE0E]/g) ?? []).length -
    (value.match(/[\uD800-\uDBFF][\uDC00-\uDFFF]/g) ?? []).length
  );
}

/** Whether the documents call `value` (given, as text) valid for `param`, with the gaps above. */
function documentedAccepts(param: DocumentedParam, value: string): boolean {
  if (/\p{Surrogate}/u.test(value)) return false;
  // An integer parameter is written in decimal; anything else is not an integer.
  const typed = param.integer && /^(0|-?[1-9]\d*)$/.test(value) ? Number(value) : value;
  if (param.name === 'country') {
    // The schema's two letters and the description's assigned code, with the validator's lower-casing.
    return ISO_COUNTRY_CODES.has(value.toLowerCase()) && (param.accepts(typed) || value.includes('\u212A'));
  }
  if (param.maxLength !== undefined && /[\uFE0E\uFE0F]/.test(value)) {
    return param.withoutMaxLength(typed) && validatorLength(value) <= param.maxLength;
  }
  return param.accepts(typed);
}

/** What the documents say validateRouteInput answers: its parameters, or the parameter it must name. */
function documentedResult(
  route: PricedRoute,
  path: Record<string, unknown>,
  query: Record<string, unknown>,
): RouteInputResult | { ok: false; names: string } {
  for (const name of route.queryParams) {
    if (Array.isArray(query[name])) return { ok: false, message: `${name} must be given only once` };
  }
  for (const param of DOCUMENTED.get(route)!) {
    const value = (param.in === 'path' ? path : query)[param.name];
    if (value === undefined || value === null) {
      if (param.required) return { ok: false, names: param.name };
    } else if (!documentedAccepts(param, value as string)) {
      return { ok: false, names: param.name };
    }
  }
  const params: RouteParams = {};
  for (const name of route.pathParams) params[name] = path[name] as string | undefined;
  for (const name of route.queryParams) params[name] = query[name] as string | undefined;
  return { ok: true, params };
}

/** The answer, with a refusal's message reduced to the parameter it names where the documents can only say that. */
function expectDocumented(route: PricedRoute, path: Record<string, unknown>, query: Record<string, unknown>): void {
  const expected = documentedResult(route, path, query);
  const actual = validateRouteInput(route, path as Record<string, string>, query as RawQuery);
  if ('names' in expected && !actual.ok) {
    expect([
      path,
      query,
      actual.message.startsWith(`${expected.names} `) && !actual.message.endsWith('given only once'),
    ]).toStrictEqual([path, query, true]);
  } else {
    expect([path, query, actual]).toStrictEqual([path, query, expected]);
  }
}

describe('validateRouteInput against the documented JSON Schemas', () => {
  it.each(ALL_PRICED_ROUTES.map((r) => [r.id, r] as const))(
    '%s: accepts what the schemas accept and names the first parameter they refuse, on random input',
    (_id, route) => {
      const { pathParams, query } = randomInput(route);
      fc.assert(
        fc.property(pathParams, query, (path, raw) => expectDocumented(route, path, raw)),
        { numRuns: 3000 },
      );
    },
  );

  it.each(ALL_PRICED_ROUTES.map((r) => [r.id, r] as const))(
    '%s: the same on every edge value of every parameter',
    (_id, route) => {
      for (const { path, query } of edgeInputs(route)) expectDocumented(route, path, query);
    },
  );

  it('meets each stated gap on some edge value, so the gaps are exercised and not hypothetical', () => {
    const search = PRICED_ROUTES.find((r) => r.id === 'apps.search')!;
    const documented = DOCUMENTED.get(search)!;
    const param = (name: string) => documented.find((p) => p.name === name)!;
    // Two letters, not an assigned code: the schema accepts, the validator refuses.
    expect([
      param('country').accepts('zz'),
      validateRouteInput(search, {}, { term: 'chess', country: 'zz' }).ok,
    ]).toEqual([true, false]);
    // KELVIN SIGN + e: the schema refuses, the validator accepts it as "ke".
    expect([
      param('country').accepts('\u212Ae'),
      validateRouteInput(search, {}, { term: 'chess', country: '\u212Ae' }).ok,
    ]).toEqual([false, true]);
    // A full-length term with a presentation selector: too long for the schema, not for MaxLength.
    const term = 'x'.repeat(ParamLimits.termMaxLength) + '\uFE0F';
    expect([param('term').accepts(term), validateRouteInput(search, {}, { term }).ok]).toEqual([false, true]);
    // A lone surrogate: Ajv accepts it as a string, the validator refuses it.
    expect([param('term').accepts('\ud800'), validateRouteInput(search, {}, { term: '\ud800' }).ok]).toEqual([
      true,
      false,
    ]);
  });
});
