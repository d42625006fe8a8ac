import { ProvenanceTrace } from './provenance.js';

describe('ProvenanceTrace', () => {
  const now = 100_000;

  it('reports nothing when no resource was used', () => {
    expect(new ProvenanceTrace().provenance(now)).toEqual({});
  });

  it('is "cache" with the age of the oldest part when every part came from the cache', () => {
    const trace = new ProvenanceTrace();
    trace.record('cache', 90_000);
    trace.record('cache', 40_500);
    trace.record('cache', 70_000);
    expect(trace.provenance(now)).toEqual({ source: 'cache', ageSeconds: 59 });
  });

  it('is "upstream" without an age when any part was fetched now, and "stale" whenever a part is stale', () => {
    const upstream = new ProvenanceTrace();
    upstream.record('cache', 0);
    upstream.record('upstream', 100_000);
    expect(upstream.provenance(now)).toEqual({ source: 'upstream' });
    const stale = new ProvenanceTrace();
    stale.record('upstream', 100_000);
    stale.record('stale', 10_000);
    stale.record('cache', 50_000);
    expect(stale.provenance(now)).toEqual({ source: 'stale', ageSeconds: 90 });
  });

  it('takes the age of the oldest part whatever its source, and never a negative one', () => {
    const stale = new ProvenanceTrace();
    stale.record('stale', 95_000);
    stale.record('upstream', 20_000);
    expect(stale.provenance(now)).toEqual({ source: 'stale', ageSeconds: 80 });
    const future = new ProvenanceTrace();
    future.record('cache', 104_000);
    expect(future.provenance(now)).toEqual({ source: 'cache', ageSeconds: 0 });
  });

  it('says how much longer the reply stays fresh: until its first part stops being fresh, with its age in ms', () => {
    const trace = new ProvenanceTrace();
    trace.record('cache', 90_000, 60_000); // fresh until 150 000
    trace.record('upstream', 100_000, 30_000); // fresh until 130 000
    expect(trace.provenance(now)).toEqual({ source: 'upstream', ageMs: 10_000, freshForMs: 30_000 });
    const cached = new ProvenanceTrace();
    cached.record('cache', 95_500, 10_000);
    expect(cached.provenance(now)).toEqual({ source: 'cache', ageSeconds: 4, ageMs: 4_500, freshForMs: 5_500 });
  });

  it('gives no freshness when a part is stale, expired, or has none, nor longer than the shortest TTL', () => {
    const stale = new ProvenanceTrace();
    stale.record('stale', 10_000, 60_000);
    stale.record('cache', 99_000, 60_000);
    expect(stale.provenance(now)).toEqual({ source: 'stale', ageSeconds: 90 });
    const expired = new ProvenanceTrace();
    expired.record('cache', 50_000, 50_000);
    expect(expired.provenance(now)).toEqual({ source: 'cache', ageSeconds: 50 });
    const none = new ProvenanceTrace();
    none.record('upstream', 100_000);
    expect(none.provenance(now)).toEqual({ source: 'upstream' });
    // A fetch a replica's clock put in the future is still fresh for no longer than its TTL.
    const future = new ProvenanceTrace();
    future.record('cache', 104_000, 2_000);
    expect(future.provenance(now)).toEqual({ source: 'cache', ageSeconds: 0, ageMs: 0, freshForMs: 2_000 });
  });

  it("names each part's source once, in the order first read; parts of unknown source add nothing", () => {
    const trace = new ProvenanceTrace();
    trace.record('cache', 90_000, 0, 'amp-api');
    trace.record('upstream', 100_000, 0, 'feed');
    trace.record('upstream', 100_000);
    trace.record('cache', 95_000, 0, 'amp-api');
    trace.record('upstream', 100_000, 0, 'feed-id-first');
    expect(trace.provenance(now)).toEqual({ source: 'upstream', upstreamSource: 'amp-api, feed, feed-id-first' });
  });

  it('is cache-only only when asked to be', () => {
    expect(new ProvenanceTrace().cacheOnly).toBe(false);
    expect(new ProvenanceTrace(true).cacheOnly).toBe(true);
  });
});
