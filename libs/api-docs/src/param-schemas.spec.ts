/*
 * The documented parameter schemas against the validation the gateway runs (the DTOs): a value the
 * documents call valid must pass, and one they rule out must be refused with a message naming the
 * parameter. Only `country` is deliberately looser on paper (a two-letter pattern; the description
 * says "one of the assigned codes").
 */
import {
  ALL_PRICED_ROUTES,
  ISO_COUNTRY_CODES,
  PRICED_ROUTES,
  type PricedRoute,
  validateRouteInput,
} from '@appcat/routes';
import { Ajv2020 } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { routeParams } from './param-schemas.js';
import { examplePathParams, paramExample } from './service-facts.js';

const ajv = new Ajv2020({ strict: false });

/** Validates `value` as parameter `name` of `route`, every other parameter at its example value. */
function gatewayAccepts(route: PricedRoute, name: string, value: string): boolean {
  const path = examplePathParams(route);
  const query: Record<string, string> = Object.fromEntries(
    route.queryParams.map((n) => [n, String(paramExample(route, n))]),
  );
  if (route.pathParams.includes(name)) path[name] = value;
  else query[name] = value;
  const result = validateRouteInput(route, path, query);
  if (!result.ok) expect(result.message.startsWith(`${name} `)).toBe(true);
  return result.ok;
}

function docsAccept(route: PricedRoute, name: string, value: string): boolean {
  const { schema } = routeParams(route).find((p) => p.name === name)!;
  // An integer parameter is written in decimal; anything else is not an integer.
  const typed = schema.type === 'integer' ? (/^(0|-?[1-9]\d*)$/.test(value) ? Number(value) : value) : value;
  return ajv.validate(schema, typed);
}

const cases = ALL_PRICED_ROUTES.flatMap((route) => routeParams(route).map((p) => [route.id, p.name, route] as const));

const CANDIDATES: Record<string, string[]> = {
  term: ['chess', 'a', ' a ', '', '   ', '\t', 'x'.repeat(200), 'x'.repeat(201)],
  page: ['0', '1', '2', '9', '10', '11', '50', '51', '-1', '1.5', 'one', ''],
  country: ['us', 'GB', 'Jp', 'usa', 'u', '12', ''],
  lang: ['en', 'en-us', 'en_GB', 'zh-hant-tw', 'fil', 'english!', 'e', 'en-', 'en-u', '', 'x'.repeat(36)],
  sort: ['recent', 'helpful', 'newest', 'RECENT', ''],
  appId: [
    '1',
    '284882215',
    'com.facebook.Facebook',
    'a-b_c',
    '../etc',
    '.hidden',
    'x'.repeat(155),
    'x'.repeat(156),
    '',
  ],
  bundleId: ['1', '1482985563', '0', '0123', '1'.repeat(19), '1'.repeat(20), 'com.example', ''],
  developerId: ['284882218', '9'.repeat(19), '9'.repeat(20), '12a', ' 1', ''],
  chart: ['top-free', 'top-paid', 'top-grossing', 'Top-Free', 'top', 'new-apps', ''],
  genre: ['6014', '7001', '7019', '6027', '7010', '6019', '36', '6014 ', 'games', ''],
};

describe('documented parameter schemas agree with the validation', () => {
  it.each(cases)('%s %s: the chosen edge cases', (_id, name, route) => {
    for (const value of CANDIDATES[name]) {
      // An empty optional parameter is left out by the DTOs; the docs do not promise it works.
      if (value === '' && !route.pathParams.includes(name) && name !== 'term') continue;
      expect([value, docsAccept(route, name, value)]).toEqual([value, gatewayAccepts(route, name, value)]);
    }
  });

  it.each(cases.filter(([, name]) => name !== 'country' && name !== 'page'))(
    '%s %s: random strings',
    (_id, name, route) => {
      fc.assert(
        fc.property(fc.string({ unit: fc.constantFrom(...'aZ09._- \t!/%é'), maxLength: 40 }), (value) => {
          if (value === '' && !route.pathParams.includes(name) && name !== 'term') return;
          expect([value, docsAccept(route, name, value)]).toEqual([value, gatewayAccepts(route, name, value)]);
        }),
        { numRuns: 300 },
      );
    },
  );

  it('country: every assigned code passes both, and the docs never accept what the pattern rules out', () => {
    const route = PRICED_ROUTES[0];
    for (const code of ISO_COUNTRY_CODES) {
      expect(docsAccept(route, 'country', code.toUpperCase())).toBe(true);
      expect(gatewayAccepts(route, 'country', code.toUpperCase())).toBe(true);
    }
    expect(gatewayAccepts(route, 'country', 'zz')).toBe(false);
  });
});
