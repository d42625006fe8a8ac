import { ErrorCode } from '@appcat/contracts';
import { REFERENCE_IDS, startStoreEmulator, type RequestHook, type StoreEmulator } from '@appcat/store-emulator';
import { freePort } from '@appcat/testing';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AppleStoreAdapter } from '../src/apple/apple-store-adapter.js';
import { FetchUpstreamHttpClient } from '../src/upstream/upstream-http-client.js';
import { configFor, wireErrorOf } from './support.js';

/** The timeout of the timeout cases, against an answer that takes SLOW_MS; every other call has a generous one. */
const TIMEOUT_MS = 300;
const SLOW_MS = 30_000;
const GENEROUS_TIMEOUT_MS = 30_000;

function adapterFor(url: string, timeoutMs = GENEROUS_TIMEOUT_MS): AppleStoreAdapter {
  const config = configFor(url);
  return new AppleStoreAdapter(
    config.apple,
    new FetchUpstreamHttpClient({ timeoutMs, userAgent: config.apple.userAgent }),
  );
}

const getFacebook = (adapter: AppleStoreAdapter) =>
  adapter.getApp({ route: 'apps.get', appId: String(REFERENCE_IDS.app), country: 'us' });
const facebookReviews = (adapter: AppleStoreAdapter) =>
  adapter.appReviews({
    route: 'apps.reviews',
    appId: String(REFERENCE_IDS.app),
    page: 1,
    country: 'us',
    sort: 'recent',
  });
const similarToFacebook = (adapter: AppleStoreAdapter) =>
  adapter.similarApps({ route: 'apps.similar', appId: String(REFERENCE_IDS.app), country: 'us' });

describe('upstream failures become typed wire errors', () => {
  let emulator: StoreEmulator;
  let adapter: AppleStoreAdapter;
  let host: string;

  beforeAll(async () => {
    emulator = await startStoreEmulator();
    adapter = adapterFor(emulator.url);
    host = new URL(emulator.url).host;
  });
  afterEach(() => emulator.setRequestHook());
  afterAll(() => emulator.close());

  const answer =
    (status: number, body = '', headers: Record<string, string> = {}): RequestHook =>
    () => ({ response: { status, body, headers } });

  it('a server that answers too late: UPSTREAM_TIMEOUT', async () => {
    emulator.setRequestHook(() => ({ delayMs: SLOW_MS }));
    const began = performance.now();
    expect(await wireErrorOf(getFacebook(adapterFor(emulator.url, TIMEOUT_MS)))).toEqual({
      code: ErrorCode.UpstreamTimeout,
      message: `upstream store timed out after ${TIMEOUT_MS} ms (${host})`,
    });
    // Given up long before the answer would have come.
    expect(performance.now() - began).toBeLessThan(SLOW_MS);
  });

  it('a body that stalls after the headers: UPSTREAM_TIMEOUT', async () => {
    const sockets = new Set<import('node:net').Socket>();
    const server: Server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/javascript' });
      res.write('{"resultCount":1,');
    });
    server.on('connection', (s) => sockets.add(s));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      expect((await wireErrorOf(getFacebook(adapterFor(url, TIMEOUT_MS)))).code).toBe(ErrorCode.UpstreamTimeout);
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('a port nobody listens on: UPSTREAM_UNREACHABLE', async () => {
    const port = await freePort();
    expect(await wireErrorOf(getFacebook(adapterFor(`http://127.0.0.1:${port}`)))).toEqual({
      code: ErrorCode.UpstreamUnreachable,
      message: `upstream store unreachable: connection refused (127.0.0.1:${port})`,
    });
  });

  it('a connection dropped without an answer: UPSTREAM_UNREACHABLE', async () => {
    emulator.setRequestHook(() => ({ destroy: true }));
    expect(await wireErrorOf(getFacebook(adapter))).toEqual({
      code: ErrorCode.UpstreamUnreachable,
      message: `upstream store unreachable: connection reset (${host})`,
    });
  });

  it('403 with an empty body, as Apple throttles search and lookup: UPSTREAM_THROTTLED', async () => {
    emulator.setRequestHook(answer(403));
    expect(await wireErrorOf(getFacebook(adapter))).toEqual({
      code: ErrorCode.UpstreamThrottled,
      message: `upstream store throttled the request: HTTP 403 with an empty body (${host})`,
    });
    expect((await wireErrorOf(facebookReviews(adapter))).code).toBe(ErrorCode.UpstreamThrottled);
  });

  it('403 with a body is not throttling: UPSTREAM_HTTP_ERROR', async () => {
    emulator.setRequestHook(answer(403, '<html>Forbidden</html>'));
    expect(await wireErrorOf(getFacebook(adapter))).toEqual({
      code: ErrorCode.UpstreamHttpError,
      message: `upstream store answered HTTP 403 (${host})`,
    });
  });

  it('429 with Retry-After, as the web catalogue throttles: UPSTREAM_THROTTLED', async () => {
    await similarToFacebook(adapter);
    emulator.setRequestHook((r) =>
      r.path.startsWith('/v1/') ? { response: { status: 429, body: '', headers: { 'retry-after': '30' } } } : undefined,
    );
    expect(await wireErrorOf(similarToFacebook(adapter))).toEqual({
      code: ErrorCode.UpstreamThrottled,
      message: `upstream store throttled the request: HTTP 429, retry after 30 s (${host})`,
    });
  });

  it.each([500, 503, 404])('HTTP %i from iTunes: UPSTREAM_HTTP_ERROR', async (status) => {
    emulator.setRequestHook(answer(status, 'oops'));
    expect(await wireErrorOf(getFacebook(adapter))).toEqual({
      code: ErrorCode.UpstreamHttpError,
      message: `upstream store answered HTTP ${status} (${host})`,
    });
    expect((await wireErrorOf(facebookReviews(adapter))).code).toBe(ErrorCode.UpstreamHttpError);
  });

  it('a token that stays rejected after one refresh: UPSTREAM_HTTP_ERROR', async () => {
    emulator.setRequestHook((r) => (r.path.startsWith('/v1/') ? { response: { status: 401, body: '' } } : undefined));
    expect(await wireErrorOf(similarToFacebook(adapter))).toEqual({
      code: ErrorCode.UpstreamHttpError,
      message: `upstream store answered HTTP 401 (${host})`,
    });
  });

  it.each([
    ['search/lookup', '/lookup', '<html>maintenance</html>', getFacebook],
    ['search/lookup', '/lookup', '{"resultCount":1}', getFacebook],
    ['reviews feed', '/us/rss', 'not xml at all <<<', facebookReviews],
    ['reviews feed', '/us/rss', '<?xml version="1.0"?><html><body>moved</body></html>', facebookReviews],
    ['web catalogue', '/v1/', '{"data":', similarToFacebook],
    ['web catalogue', '/v1/', '{"errors":[]}', similarToFacebook],
  ])('an unreadable %s body: UPSTREAM_BAD_RESPONSE', async (_name, prefix, body, call) => {
    await similarToFacebook(adapter);
    emulator.setRequestHook((r) => (r.path.startsWith(prefix) ? { response: { status: 200, body } } : undefined));
    const error = await wireErrorOf(call(adapter));
    expect(error.code).toBe(ErrorCode.UpstreamBadResponse);
    expect(error.message).toMatch(new RegExp(`^upstream store answered .+ \\(${host.replace(/\./g, '\\.')}\\)$`));
  });

  it('a page without the token: UPSTREAM_BAD_RESPONSE, and nothing cached', async () => {
    const fresh = adapterFor(emulator.url);
    emulator.setRequestHook((r) =>
      r.path.startsWith('/us/app/') ? { response: { status: 200, body: '<html>redesigned</html>' } } : undefined,
    );
    expect(await wireErrorOf(similarToFacebook(fresh))).toEqual({
      code: ErrorCode.UpstreamBadResponse,
      message: `upstream store answered a store page that carries no web catalogue token (${host})`,
    });
    emulator.setRequestHook();
    expect((await similarToFacebook(fresh)).resultCount).toBeGreaterThan(0);
  });

  it('never puts the token, path or query in a message', async () => {
    await similarToFacebook(adapter);
    emulator.setRequestHook(answer(502));
    for (const call of [getFacebook, facebookReviews, similarToFacebook]) {
      const { message } = await wireErrorOf(call(adapter));
      expect(message).not.toContain(emulator.token());
      expect(message).not.toMatch(/lookup|rss|catalog|284882215|Bearer/);
    }
  });
});
