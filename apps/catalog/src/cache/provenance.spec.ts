import { recordProvenance, traceProvenance } from './provenance.js';

describe('traceProvenance', () => {
  const now = () => 100_000;

  it('reports nothing when no resource was used', async () => {
    expect(await traceProvenance(async () => 1, now)).toEqual({ result: 1, provenance: {} });
  });

  it('is "cache" with the age of the oldest part when every part came from the cache', async () => {
    const traced = await traceProvenance(async () => {
      recordProvenance('cache', 90_000);
      await Promise.resolve();
      recordProvenance('cache', 40_500);
      return 'x';
    }, now);
    expect(traced).toEqual({ result: 'x', provenance: { source: 'cache', ageSeconds: 59 } });
  });

  it('is "upstream" without an age when any part was fetched now, and "stale" whenever a part is stale', async () => {
    expect((await traceProvenance(async () => (recordProvenance('cache', 0), recordProvenance('upstream', 100_000)), now)).provenance).toEqual({ source: 'upstream' });
    const stale = await traceProvenance(async () => {
      recordProvenance('upstream', 100_000);
      recordProvenance('stale', 10_000);
    }, now);
    expect(stale.provenance).toEqual({ source: 'stale', ageSeconds: 90 });
  });

  it('keeps concurrent traces apart', async () => {
    const slow = traceProvenance(async () => {
      await new Promise((r) => setTimeout(r, 20));
      recordProvenance('stale', 0);
    }, now);
    const fast = traceProvenance(async () => recordProvenance('cache', 99_000), now);
    expect((await fast).provenance).toEqual({ source: 'cache', ageSeconds: 1 });
    expect((await slow).provenance).toEqual({ source: 'stale', ageSeconds: 100 });
  });
});
