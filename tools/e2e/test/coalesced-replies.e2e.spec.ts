/*
 * Coalesced requests whose replies outgrow one NATS message (`max_payload`, 1 MiB by default): the
 * gateway's peeks of one loop turn (here: the tool calls of one MCP batch) leave as one
 * `catalog.peek.batch`, and warm answers of a few dozen kilobytes each add up past the limit. The reply must still reach every caller, from the cache, and
 * no request may wait for the RPC timeout.
 */
import { GatewayMetrics } from '@appcat/ops';
import { System } from './support/system.js';

/**
 * The tool calls of one MCP batch run in one loop turn, so their NATS requests are coalesced; each
 * answer's `appcat/cache` (or its error text).
 */
async function callTogether(
  baseUrl: string,
  calls: ({ tool?: string } & Record<string, unknown>)[],
  key: string,
): Promise<string[]> {
  const res = await fetch(`${baseUrl}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${key}`,
    },
    body: JSON.stringify(
      calls.map(({ tool = 'apps_search', ...args }, id) => ({
        jsonrpc: '2.0',
        id,
        method: 'tools/call',
        params: { name: tool, arguments: args },
      })),
    ),
  });
  type Answer = {
    id: number;
    result: { isError?: boolean; content: { text: string }[]; _meta?: Record<string, unknown> };
  };
  const answers = ((await res.json()) as Answer[]).sort((a, b) => a.id - b.id);
  return answers.map(({ result }) =>
    result.isError ? result.content[0].text : String(result._meta?.['appcat/cache']),
  );
}

/** The gateway's NATS requests by subject and outcome, from its metrics (a count per pair). */
async function natsOutcomes(system: System): Promise<Map<string, number>> {
  const metrics = await system.gateway.get(GatewayMetrics).registry.getMetricsAsJSON();
  const latency = metrics.find((metric) => metric.name === 'appcat_nats_request_seconds')!;
  const counts = new Map<string, number>();
  for (const value of latency.values as { metricName?: string; labels: Record<string, string>; value: number }[]) {
    if (!value.metricName?.endsWith('_count')) continue;
    counts.set(`${value.labels.subject} ${value.labels.outcome}`, value.value);
  }
  return counts;
}

describe('coalesced replies larger than one NATS message', () => {
  let system: System;

  beforeAll(async () => {
    system = await System.start({
      env: {
        GATEWAY_RPC_BATCH_MAX: '64',
        // Every read ahead goes to the catalog, none is answered by the gateway's near cache.
        GATEWAY_NEAR_CACHE_MS: '0',
        // Far above a healthy round trip, far below the test's limit: a lost reply shows as a timeout.
        NATS_REQUEST_TIMEOUT_MS: '15000',
      },
    });
  });

  afterAll(async () => {
    await system?.stop();
  });

  it('a peek batch whose answers exceed max_payload reaches every caller from the cache, without a timeout', async () => {
    const key = await system.createKey('10');
    const calls = ['chess', 'photo', 'music', 'puzzle', 'weather', 'travel'].flatMap((term) =>
      Array.from({ length: 10 }, (_, page) => ({ term, page: page + 1 })),
    );
    let bytes = 0;
    for (const { term, page } of calls) {
      const warm = await system.get(`/api/apps?term=${term}&page=${page}`, key.key);
      expect(warm.status).toBe(200);
      bytes += Buffer.byteLength(JSON.stringify(warm.body.data));
    }
    // The premise: together the answers cannot travel as one message.
    expect(bytes).toBeGreaterThan(1.5 * 1024 * 1024);

    const before = await natsOutcomes(system);
    expect(await callTogether(system.baseUrl, calls, key.key)).toEqual(calls.map(() => 'CACHE'));
    const after = await natsOutcomes(system);
    const delta = (name: string) => (after.get(name) ?? 0) - (before.get(name) ?? 0);
    expect(delta('catalog.peek.batch SERVICE_TIMEOUT')).toBe(0);
    expect(delta('catalog.peek.batch ok')).toBeGreaterThan(0);
  });
});

describe('answers too large for any NATS message', () => {
  let system: System;

  beforeAll(async () => {
    system = await System.start({
      // A few kilobytes: an app's answer fits, a page of search results does not.
      natsMaxPayloadBytes: 8 * 1024,
      env: { GATEWAY_RPC_BATCH_MAX: '64', GATEWAY_NEAR_CACHE_MS: '0', NATS_REQUEST_TIMEOUT_MS: '15000' },
    });
  });

  afterAll(async () => {
    await system?.stop();
  });

  it('is that item`s failure: its caller falls back and hears at once; the rest of the batch arrives in parts', async () => {
    const key = await system.createKey('1');
    const countries = ['us', 'gb', 'de', 'fr', 'jp', 'br', 'ca', 'au', 'it', 'es'];
    for (const country of countries) {
      expect((await system.get(`/api/apps/284882215?country=${country}`, key.key)).status).toBe(200);
    }
    // Fetched and cached by the catalog, but its reply cannot reach the gateway: an uncharged 502 at once.
    const search = await system.get('/api/apps?term=chess', key.key);
    expect([search.status, search.body.message]).toEqual([
      502,
      'catalog.fetch reply larger than NATS max_payload; nothing was charged',
    ]);

    const before = await natsOutcomes(system);
    const calls = [
      ...countries.map((country) => ({ tool: 'apps_get', appId: '284882215', country })),
      { tool: 'apps_search', term: 'chess' },
    ];
    const answers = await callTogether(system.baseUrl, calls, key.key);
    expect(answers.slice(0, countries.length)).toEqual(countries.map(() => 'CACHE'));
    expect(answers[countries.length]).not.toBe('CACHE');
    const after = await natsOutcomes(system);
    const delta = (name: string) => (after.get(name) ?? 0) - (before.get(name) ?? 0);
    for (const name of new Set([...before.keys(), ...after.keys()]))
      if (name.endsWith('SERVICE_TIMEOUT')) expect([name, delta(name)]).toEqual([name, 0]);
    expect(delta('catalog.peek.batch ok')).toBe(1);
    // The search's peek failed as an item, its fetch was answered with an error instead of the reply.
    expect(delta('catalog.fetch REPLY_TOO_LARGE')).toBe(1);
  });
});
