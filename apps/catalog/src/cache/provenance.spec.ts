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

  it('is cache-only only when asked to be', () => {
    expect(new ProvenanceTrace().cacheOnly).toBe(false);
    expect(new ProvenanceTrace(true).cacheOnly).toBe(true);
  });
});
