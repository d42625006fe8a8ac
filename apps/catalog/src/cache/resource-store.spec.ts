import { NotCachedError, ProvenanceTrace, UNTRACKED } from './provenance.js';
import { UncachedResources } from './resource-store.js';

describe('UncachedResources', () => {
  const freshness = { freshMs: 1000, notFoundMs: 1000, staleMs: 0 };
  const store = new UncachedResources();

  it('asks the upstream and notes the resource in the trace it is given', async () => {
    const trace = new ProvenanceTrace();
    expect(await store.get({ key: 'a', freshness, load: async () => 'value' }, trace)).toBe('value');
    expect(trace.provenance()).toEqual({ source: 'upstream' });
  });

  it('asks nothing for a cache-only trace', async () => {
    let loads = 0;
    const load = async () => (loads++, 'value');
    await expect(store.get({ key: 'a', freshness, load }, new ProvenanceTrace(true))).rejects.toBeInstanceOf(
      NotCachedError,
    );
    expect(loads).toBe(0);
  });

  it('asks the upstream for an untracked resource, which has nowhere to be noted', async () => {
    expect(await store.get({ key: 'a', freshness, load: async () => 'value' }, UNTRACKED)).toBe('value');
    expect(UNTRACKED.cacheOnly).toBe(false);
  });
});
