import { request as httpRequest } from 'node:http';
import { endpointOf, type EmulatorRequest } from '@appcat/store-emulator';
import fc from 'fast-check';
import type { ChaosCluster } from './cluster.js';

export interface FuzzReport {
  requests: number;
  statuses: Record<string, number>;
  upstreamRequests: number;
  violations: string[];
}

const ID_ROUTES = [
  '/api/apps/{id}',
  '/api/apps/{id}/reviews',
  '/api/apps/{id}/similar',
  '/api/bundles/{id}',
  '/api/bundles/{id}/reviews',
  '/api/bundles/{id}/similar',
  '/api/developers/{id}',
];
const ROUTES = [
  ...ID_ROUTES,
  '/api/apps',
  '/api/bundles',
  '/api/credits/balance',
  '/api/credits/topup',
  '/healthz',
  '/readyz',
  '/',
];
const PARAMS = ['term', 'page', 'country', 'lang', 'sort', 'amount', 'id', 'url', 'callback'];
const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD', 'TRACE', 'PROPFIND', 'get'];

/** Text that breaks naive parsers: traversal, URL tricks, encodings, unicode, control characters. */
const nasty = fc.oneof(
  fc.constantFrom(
    '..',
    '../..',
    '%2e%2e%2f',
    '..%2F..%2Fetc%2Fpasswd',
    '%252e%252e',
    '//evil.example',
    'http://evil.example/x',
    '@evil.example',
    '127.0.0.1:22',
    '%00',
    '%0d%0aX-Injected:%201',
    '1?x=1',
    '1#frag',
    '1;x=1',
    '%ZZ',
    '%',
    '284882215/../../lookup',
    '\u202e',
    'ak_',
    'Bearer',
    '0x' + 'f'.repeat(64),
    '9'.repeat(40),
    '-1',
    '1e9',
    ' 1',
    'NaN',
    'com.facebook.Facebook',
    '𝕏',
    '🙂',
  ),
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.string({ minLength: 300, maxLength: 3000 }),
);

const encoded = nasty.map((text) =>
  Math.random() < 0.5 ? encodeURIComponent(text) : text.replace(/[\s#?]/g, (c) => encodeURIComponent(c)),
);

const fuzzRequest = fc.record({
  method: fc.constantFrom(...METHODS),
  route: fc.constantFrom(...ROUTES),
  id: encoded,
  query: fc.array(fc.tuple(fc.constantFrom(...PARAMS), encoded), { maxLength: 5 }),
  authorization: fc.option(
    fc.oneof(
      nasty,
      nasty.map((t) => `Bearer ${t}`),
      fc.constantFrom(
        'Bearer',
        'Bearer ',
        'Basic Zm9v',
        'bearer ak_x',
        `Bearer ak_${'1'.repeat(44)}`,
        `Bearer ${'a'.repeat(9000)}`,
      ),
    ),
    { nil: undefined },
  ),
  paymentSignature: fc.option(
    fc.oneof(
      nasty,
      fc.string({ maxLength: 200 }).map((t) => Buffer.from(t).toString('base64')),
      fc.jsonValue({ maxDepth: 3 }).map((v) => Buffer.from(JSON.stringify(v)).toString('base64')),
      fc.constant(Buffer.from(JSON.stringify({ x402Version: 2, accepted: {}, payload: {} })).toString('base64')),
      fc.constant('A'.repeat(20_000)),
    ),
    { nil: undefined },
  ),
  extraHeader: fc.option(
    fc.tuple(
      fc.constantFrom('x-request-id', 'x-forwarded-for', 'x-forwarded-host', 'host', 'content-type', 'x-big'),
      nasty,
    ),
    { nil: undefined },
  ),
});

type FuzzRequest = typeof fuzzRequest extends fc.Arbitrary<infer T> ? T : never;

/** Header values a real client cannot send (Node refuses them): dropped rather than failing the run. */
function headerSafe(value: string): string | null {
  return /^[\t\x20-\x7e\x80-\xff]*$/.test(value) ? value : null;
}

function send(base: URL, req: FuzzRequest): Promise<{ status: number; body: string } | null> {
  const path =
    req.route.replace('{id}', req.id) +
    (req.query.length ? `?${req.query.map(([k, v]) => `${k}=${v}`).join('&')}` : '');
  const headers: Record<string, string> = {};
  const add = (name: string, value: string | undefined) => {
    const safe = value === undefined ? null : headerSafe(value);
    if (safe !== null) headers[name] = safe;
  };
  add('authorization', req.authorization);
  add('payment-signature', req.paymentSignature);
  if (req.extraHeader)
    add(req.extraHeader[0], req.extraHeader[0] === 'x-big' ? req.extraHeader[1].repeat(20) : req.extraHeader[1]);
  return new Promise((resolve) => {
    let clientRequest;
    try {
      // node:http sends the path as given (fetch would normalise `..` and encodings away).
      clientRequest = httpRequest({
        host: base.hostname,
        port: base.port,
        method: req.method.toUpperCase(),
        path: path.replace(/[^\x21-\x7e]/g, (c) => encodeURIComponent(c)),
        headers,
      });
    } catch {
      resolve(null); // a request Node itself refuses to send
      return;
    }
    clientRequest.setTimeout(15_000, () => clientRequest.destroy());
    clientRequest.on('response', (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
      response.on('error', () => resolve(null));
    });
    clientRequest.on('error', () => resolve(null));
    clientRequest.end();
  });
}

/**
 * Fuzzes every route, method and header of a gateway. For every answer: a JSON envelope whose status is
 * the HTTP status (HEAD: no body; GET pages documented as non-JSON are not among these routes), never a
 * 5xx. Over the run: nothing charged (no debit, no settlement, the key's balance unchanged) and every
 * request the catalog made upstream went to the emulator on one of the expected endpoint paths, with
 * no traversal left in it.
 */
export async function fuzzGateway(cluster: ChaosCluster, runs: number, seed?: number): Promise<FuzzReport> {
  const base = new URL(cluster.gatewayUrls[0]);
  const upstream: EmulatorRequest[] = [];
  cluster.emulator.setRequestHook((request) => {
    upstream.push(request);
    return undefined;
  });
  const books = async () => {
    const { rows } = await cluster.db.query<{ debits: string; settlements: string; spent: string }>(
      `SELECT (SELECT count(*) FROM credit_debits) AS debits, (SELECT count(*) FROM x402_settlements) AS settlements, (SELECT coalesce(sum(spent_micros), 0) FROM api_keys) AS spent`,
    );
    return rows[0];
  };
  const key = await cluster.createKey(1_000_000n);
  const before = await books();
  const statuses: Record<string, number> = {};
  const violations: string[] = [];
  let requests = 0;
  await fc.assert(
    fc.asyncProperty(fuzzRequest, async (req) => {
      // Now and then the real key, with a request that must still be refused before any charge.
      if (req.authorization === undefined && Math.random() < 0.2) req.authorization = `Bearer ${key.key}`;
      const answer = await send(base, req);
      requests++;
      if (!answer) return true;
      statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
      const where = JSON.stringify({
        ...req,
        authorization: req.authorization?.slice(0, 200),
        paymentSignature: req.paymentSignature?.slice(0, 200),
      });
      if (answer.status >= 500) violations.push(`${where}: ${answer.status} ${answer.body.slice(0, 200)}`);
      if (req.method.toUpperCase() === 'HEAD') return true;
      let envelope: { status?: unknown; message?: unknown } | null;
      try {
        envelope = JSON.parse(answer.body) as { status?: unknown; message?: unknown };
      } catch {
        envelope = null;
      }
      if (!envelope || envelope.status !== answer.status || typeof envelope.message !== 'string') {
        violations.push(`${where}: ${answer.status} without an envelope: ${answer.body.slice(0, 120)}`);
      }
      return true;
    }),
    { numRuns: runs, ...(seed !== undefined ? { seed } : {}) },
  );
  cluster.emulator.setRequestHook(undefined);

  // A paid 200 is possible only with the real key and a fully valid request; count those and allow them.
  const paid = statuses['200'] ?? 0;
  const after = await books();
  const newDebits = Number(after.debits) - Number(before.debits);
  if (Number(after.settlements) !== Number(before.settlements))
    violations.push(`x402 settlements changed: ${before.settlements} → ${after.settlements}`);
  if (newDebits > paid) violations.push(`${newDebits} debits for ${paid} answers 200`);
  for (const request of upstream) {
    const endpoint = endpointOf(request.path);
    if (endpoint === 'other' || /(^|\/)\.\.?(\/|$)|%2e|%2f|%5c|\\/i.test(request.path))
      violations.push(`upstream request steered: ${request.method} ${request.path}`);
    if (request.method !== 'GET') violations.push(`upstream request ${request.method} ${request.path}`);
  }
  return { requests, statuses, upstreamRequests: upstream.length, violations };
}

/** Values the gateway accepts, chosen to break a URL built by concatenation: they reach the upstream. */
const hostileTerm = nasty.map((text) => text.slice(0, 200)).filter((text) => text.trim() !== '' && isWellFormed(text));
const validAppId = fc.oneof(
  fc.stringMatching(/^[1-9]\d{0,18}$/),
  fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9._-]{0,40}$/),
  fc.constantFrom('a..b', 'com.example..app', 'x.-_', '0..0', 'evil.example', '127.0.0.1', 'localhost'),
);
const numericId = fc.stringMatching(/^[1-9]\d{0,18}$/);
const steeringRequest = fc.oneof(
  fc.record({
    kind: fc.constant('search' as const),
    term: hostileTerm,
    country: fc.constantFrom('us', 'GB', 'jp'),
    lang: fc.constantFrom(undefined, 'en-us', 'ja_JP'),
  }),
  fc.record({
    kind: fc.constantFrom('app' as const, 'reviews' as const, 'similar' as const),
    id: validAppId,
    country: fc.constantFrom('us', 'de'),
  }),
  fc.record({
    kind: fc.constantFrom('developer' as const, 'bundle' as const),
    id: numericId,
    country: fc.constant('us'),
  }),
);
type SteeringRequest = typeof steeringRequest extends fc.Arbitrary<infer T> ? T : never;

function isWellFormed(text: string): boolean {
  try {
    encodeURIComponent(text);
    return true;
  } catch {
    return false;
  }
}

function steeringPath(req: SteeringRequest): string {
  switch (req.kind) {
    case 'search':
      return `/api/apps?term=${encodeURIComponent(req.term)}&country=${req.country}${req.lang ? `&lang=${req.lang}` : ''}`;
    case 'app':
      return `/api/apps/${encodeURIComponent(req.id)}?country=${req.country}`;
    case 'reviews':
      return `/api/apps/${encodeURIComponent(req.id)}/reviews?country=${req.country}`;
    case 'similar':
      return `/api/apps/${encodeURIComponent(req.id)}/similar?country=${req.country}`;
    case 'developer':
      return `/api/developers/${req.id}`;
    case 'bundle':
      return `/api/bundles/${req.id}?country=${req.country}`;
  }
}

/**
 * How the catalog keys a search term (NFC, trimmed, spaces collapsed, lower case): what must arrive
 * upstream. NFC included: a CJK compatibility ideograph, say, reaches the store as its unified form.
 */
const normalisedTerm = (term: string) => term.normalize('NFC').trim().replace(/\s+/g, ' ').toLowerCase();

/**
 * Paid, valid requests whose ids and search terms are built to steer a URL made by concatenation
 * (traversal, `@host`, `?`, `#`, CR LF, percent signs, unicode). Every one reaches the catalog and most
 * the upstream: each upstream request must stay on the emulator (its Host), on an expected endpoint
 * path with no traversal, and a search must carry exactly the term sent, as one decoded query value.
 */
export async function fuzzUpstreamSteering(cluster: ChaosCluster, runs: number, seed?: number): Promise<FuzzReport> {
  const base = new URL(cluster.gatewayUrls[0]);
  const emulatorHost = new URL(cluster.emulator.url).host;
  const upstream: EmulatorRequest[] = [];
  cluster.emulator.setRequestHook((request) => {
    upstream.push(request);
    return undefined;
  });
  const key = await cluster.createKey(1_000_000n);
  const statuses: Record<string, number> = {};
  const violations: string[] = [];
  const termsSent = new Set<string>();
  let requests = 0;
  await fc.assert(
    fc.asyncProperty(steeringRequest, async (req) => {
      if (req.kind === 'search') termsSent.add(normalisedTerm(req.term));
      const answer = await send(base, {
        method: 'GET',
        route: steeringPath(req),
        id: '',
        query: [],
        authorization: `Bearer ${key.key}`,
        paymentSignature: undefined,
        extraHeader: undefined,
      });
      requests++;
      if (!answer) return true;
      statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
      if (answer.status >= 500)
        violations.push(`${JSON.stringify(req)}: ${answer.status} ${answer.body.slice(0, 200)}`);
      return true;
    }),
    { numRuns: runs, ...(seed !== undefined ? { seed } : {}) },
  );
  cluster.emulator.setRequestHook(undefined);
  for (const request of upstream) {
    const endpoint = endpointOf(request.path);
    if (request.headers.host !== emulatorHost)
      violations.push(`upstream request to host ${request.headers.host}: ${request.path}`);
    if (endpoint === 'other' || /(^|\/)\.\.?(\/|$)|%2e|%2f|%5c|\\/i.test(request.path))
      violations.push(`upstream request steered: ${request.method} ${request.path}`);
    if (endpoint === 'search') {
      const terms = request.query.getAll('term');
      if (terms.length !== 1 || !termsSent.has(normalisedTerm(terms[0])))
        violations.push(`search upstream with term(s) ${JSON.stringify(terms)} never sent`);
    }
  }
  return { requests, statuses, upstreamRequests: upstream.length, violations };
}
