/*
 * Every HTTP method Node accepts, against the whole system: a priced path serves GET alone (405 with
 * `Allow: GET` for every other method, never a charge), an unknown path is a 404, and a free page
 * answers HEAD as it answers GET. Sent with node:http, since fetch refuses TRACE and sends no QUERY
 * without a body.
 */
import { METHODS, request } from 'node:http';
import { System } from './support/system.js';

interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

describe('HTTP methods', () => {
  let system: System;

  beforeAll(async () => {
    system = await System.start();
  });

  afterAll(async () => {
    await system?.stop();
  });

  function send(method: string, path: string, headers: Record<string, string> = {}): Promise<RawAnswer> {
    return new Promise((resolve, reject) => {
      const req = request(`${system.baseUrl}${path}`, { method, headers }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
      });
      req.on('error', reject);
      req.end();
    });
  }

  const envelope = (answer: RawAnswer) => JSON.parse(answer.body) as unknown;

  // CONNECT asks for a tunnel and has its own answer (gateway-http.spec.ts).
  const OTHER_METHODS = METHODS.filter((method) => method !== 'GET' && method !== 'CONNECT');

  it.each(OTHER_METHODS)(
    '%s on a priced path → 405 with Allow: GET and the envelope, nothing charged',
    async (method) => {
      const key = await system.createKey('1');
      const answer = await send(method, '/api/apps/284882215', { authorization: `Bearer ${key.key}` });
      expect([answer.status, answer.headers.allow]).toEqual([405, 'GET']);
      if (method !== 'HEAD')
        expect(envelope(answer)).toEqual({ status: 405, message: 'method not allowed', data: null });
      expect(await system.balance(key.key)).toBe('1.000000');
    },
  );

  it('QUERY without a content type: 405 on a priced path, 404 elsewhere, in our words', async () => {
    const priced = await send('QUERY', '/api/apps?term=chess');
    expect([priced.status, priced.headers.allow, envelope(priced)]).toEqual([
      405,
      'GET',
      { status: 405, message: 'method not allowed', data: null },
    ]);
    const elsewhere = await send('QUERY', '/nothing-here');
    expect([elsewhere.status, envelope(elsewhere)]).toEqual([404, { status: 404, message: 'not found', data: null }]);
  });

  it.each(['TRACE', 'PROPFIND', 'PURGE'])('%s on an unknown path → 404 envelope', async (method) => {
    const answer = await send(method, '/nothing-here');
    expect([answer.status, envelope(answer)]).toEqual([404, { status: 404, message: 'not found', data: null }]);
  });

  it.each(['TRACE', 'PROPFIND'])('%s /mcp → 405 JSON-RPC error with Allow: POST', async (method) => {
    const answer = await send(method, '/mcp');
    expect([answer.status, answer.headers.allow]).toEqual([405, 'POST']);
    expect(envelope(answer)).toEqual({
      jsonrpc: '2.0',
      error: { code: -32000, message: 'Method not allowed.' },
      id: null,
    });
  });

  it('HEAD /topup answers as GET does, without the body', async () => {
    const get = await send('GET', '/topup');
    const head = await send('HEAD', '/topup');
    expect([head.status, head.body]).toEqual([200, '']);
    expect(head.headers['content-type']).toBe(get.headers['content-type']);
    expect(head.headers['content-security-policy']).toBe(get.headers['content-security-policy']);
    expect(head.headers['content-length']).toBe(get.headers['content-length']);
  });
});
