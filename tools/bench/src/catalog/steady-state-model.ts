/**
 * The upstream budget at a sustained rate, in virtual time: the upstream-calls bench runs for minutes,
 * in which no entry ever expires, so this replays its workload for a day against the catalog's own keys,
 * settings (readCatalogConfig, so defaults cannot drift) and refresh choice (chooseRefreshes), with 1, 2,
 * 4 and 8 egresses. What it models and leaves out, and its settings: docs/catalog-resilience.md, "The
 * upstream budget: the model".
 */
import type { CatalogQuery } from '@appcat/contracts';
import { startStoreEmulator, EmulatorControlClient } from '@appcat/store-emulator';
import { chooseRefreshes, guaranteedRefreshIntervals, readCatalogConfig } from '@appcat/catalog';
import { Workload } from './workload.js';

function numbers(name: string, fallback: number[]): number[] {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const values = raw.split(',').map(Number);
  if (values.some((v) => !Number.isFinite(v) || v <= 0))
    throw new Error(`${name} must be a comma-separated list of positive numbers, got ${raw}`);
  return values;
}

const rates = numbers('BENCH_MODEL_RATES', [1000, 10_000]);
const egressCounts = numbers('BENCH_MODEL_EGRESSES', [1, 2, 4, 8]);
// One hour past the longest freshness that matters for the targets (details, 12 h): entries have expired and been refreshed.
const [hours] = numbers('BENCH_MODEL_HOURS', [13]);
const [latencyMs] = numbers('BENCH_UPSTREAM_LATENCY_MS', [100]);
/** Apple's own limit per egress for Search/Lookup and the feed (reference: about 20 a minute per IP); more in a minute counts as a throttle. */
const [appleItunesPerMinute] = numbers('BENCH_MODEL_APPLE_ITUNES_PER_MIN', [20]);
const config = readCatalogConfig();
const ttl = config.cache.ttl;
const { batchMaxIds, batchWindowMs } = config.cache;
const { refreshIntervalMs, refreshMaxKeys, refreshReserveTokens, demandWindowSeconds } = config.budget;
const maxWaitS = config.rateLimitMaxWaitMs / 1000;
const limits = { itunes: config.apple.rateLimits.itunes, amp: config.apple.rateLimits.ampApi };
type Host = keyof typeof limits;
/** Apple's limit per egress and minute as the model judges throttling: the reference's for iTunes; the web catalogue's is not published, so our own. */
const appleLimit: Record<Host, number> = { itunes: appleItunesPerMinute, amp: limits.amp.perMinute + limits.amp.burst };

type Kind = 'details' | 'recent reviews' | 'reviews' | 'lists' | 'search';
interface Resource {
  key: string;
  host: Host;
  kind: Kind;
  freshS: number;
  group?: string;
}

/** The resource a query loads first, as the catalog keys and groups it (apple-resources.ts, facts/store-facts.ts). */
function resourceOf(q: CatalogQuery): Resource | undefined {
  switch (q.route) {
    case 'apps.get': {
      const by = /^\d+$/.test(q.appId) ? 'id' : 'bundleId';
      return {
        key: `app:${q.country}:${by}:${q.appId}`,
        host: 'itunes',
        kind: 'details',
        freshS: ttl.detailsSeconds,
        group: `lookup:${q.country}:${by}`,
      };
    }
    case 'apps.similar':
      return {
        key: `similar:${q.country}:${q.appId}`,
        host: 'amp',
        kind: 'lists',
        freshS: ttl.listsSeconds,
        group: `similar:${q.country}`,
      };
    case 'bundles.get':
    case 'bundles.similar':
    case 'bundles.reviews':
      return {
        key: `bundle:${q.country}:${q.bundleId}`,
        host: 'amp',
        kind: 'details',
        freshS: ttl.detailsSeconds,
        group: `bundle:${q.country}`,
      };
    case 'apps.search':
      return { key: `search:${q.country}:${q.term}`, host: 'itunes', kind: 'search', freshS: ttl.searchSeconds };
    case 'bundles.search':
      return {
        key: `bundle-search:${q.country}:${q.page}:${q.term}`,
        host: 'amp',
        kind: 'search',
        freshS: ttl.searchSeconds,
      };
    case 'apps.reviews': {
      const recent = q.page === 1 && q.sort === 'recent';
      return {
        key: `reviews:${q.country}:${q.appId}:${q.sort}:${q.page}`,
        host: 'itunes',
        kind: recent ? 'recent reviews' : 'reviews',
        freshS: recent ? ttl.recentReviewsSeconds : ttl.reviewsSeconds,
      };
    }
    case 'developers.get':
      return { key: `developer:${q.developerId}`, host: 'itunes', kind: 'lists', freshS: ttl.listsSeconds };
    case 'apps.ratings':
      return { key: `ratings:${q.country}:${q.appId}`, host: 'itunes', kind: 'details', freshS: ttl.detailsSeconds };
    case 'apps.privacy':
    case 'apps.versions':
      return { key: `app-facts:${q.country}:${q.appId}`, host: 'amp', kind: 'details', freshS: ttl.detailsSeconds };
    case 'charts.get':
      return {
        key: `chart:${q.country}:${q.chart}:${q.genre}`,
        host: 'itunes',
        kind: 'lists',
        freshS: ttl.chartsSeconds,
      };
    case 'suggestions.search':
      return undefined;
  }
}

/** One host's token buckets, one per egress, taken as the rate limiter's script takes them. */
class Budget {
  private readonly tokens: number[];
  private readonly at: number[];
  private readonly calls: number[][];
  private turn = 0;
  /** Most calls one egress made in any 60 s, and how many calls went past Apple's limit. */
  maxPerMinute = 0;
  throttles = 0;
  total = 0;

  constructor(
    private readonly perS: number,
    private readonly burst: number,
    egresses: number,
    private readonly apple: number,
  ) {
    this.tokens = Array.from({ length: egresses }, () => burst);
    this.at = Array.from({ length: egresses }, () => 0);
    this.calls = Array.from({ length: egresses }, () => []);
  }

  private level(i: number, now: number): number {
    if (now > this.at[i]) {
      this.tokens[i] = Math.min(this.burst, this.tokens[i] + (now - this.at[i]) * this.perS);
      this.at[i] = now;
    }
    return this.tokens[i];
  }

  /** Whole tokens over all egresses now. */
  whole(now: number): number {
    let sum = 0;
    for (let i = 0; i < this.tokens.length; i++) sum += Math.max(0, Math.floor(this.level(i, now)));
    return sum;
  }

  /** Takes a token; answers when the call goes (≥ now), or undefined when refused (no token within maxWait). */
  take(now: number, maxWait: number): number | undefined {
    const n = this.tokens.length;
    const first = this.turn++ % n;
    let best = first;
    for (let step = 0; step < n; step++) {
      const i = (first + step) % n;
      if (this.level(i, now) > this.level(best, now)) best = i;
      if (this.level(best, now) >= 1) break;
    }
    const level = this.level(best, now);
    const wait = level >= 1 ? 0 : (1 - level) / this.perS;
    if (wait > maxWait) return undefined;
    this.tokens[best] = level - 1;
    this.record(best, now + wait);
    return now + wait;
  }

  private record(egress: number, at: number): void {
    this.total++;
    const calls = this.calls[egress];
    calls.push(at);
    let drop = 0;
    while (calls[drop] <= at - 60) drop++;
    if (drop > 0) calls.splice(0, drop);
    if (calls.length > this.apple) this.throttles++;
    if (calls.length > this.maxPerMinute) this.maxPerMinute = calls.length;
  }
}

/** A max-heap of queued keys by demand; entries whose demand changed since are skipped when popped. */
class DemandQueue {
  private readonly heap: { key: string; score: number }[] = [];
  readonly scores = new Map<string, number>();
  readonly resources = new Map<string, Resource>();

  get size(): number {
    return this.scores.size;
  }

  has(key: string): boolean {
    return this.scores.has(key);
  }

  set(resource: Resource, score: number): void {
    this.scores.set(resource.key, score);
    this.resources.set(resource.key, resource);
    this.push({ key: resource.key, score });
  }

  bump(key: string): void {
    const score = this.scores.get(key);
    if (score === undefined) return;
    this.scores.set(key, score + 1);
    this.push({ key, score: score + 1 });
  }

  /** The n most requested keys, taken off. */
  take(n: number): { key: string; demand: number; resource: Resource; job: { group?: string } }[] {
    const out: { key: string; demand: number; resource: Resource; job: { group?: string } }[] = [];
    while (out.length < n && this.heap.length > 0) {
      const top = this.pop()!;
      if (this.scores.get(top.key) !== top.score) continue;
      const resource = this.resources.get(top.key)!;
      this.scores.delete(top.key);
      this.resources.delete(top.key);
      out.push({ key: top.key, demand: top.score, resource, job: { group: resource.group } });
    }
    return out;
  }

  private push(entry: { key: string; score: number }): void {
    const h = this.heap;
    h.push(entry);
    let i = h.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (h[parent].score >= h[i].score) break;
      [h[parent], h[i]] = [h[i], h[parent]];
      i = parent;
    }
  }

  private pop(): { key: string; score: number } | undefined {
    const h = this.heap;
    const top = h[0];
    const last = h.pop();
    if (h.length > 0 && last) {
      h[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < h.length && h[l].score > h[m].score) m = l;
        if (r < h.length && h[r].score > h[m].score) m = r;
        if (m === i) break;
        [h[m], h[i]] = [h[i], h[m]];
        i = m;
      }
    }
    return top;
  }
}

interface Result {
  requests: number;
  answered: number;
  stale: number;
  failedByRoute: Map<string, number>;
  calls: Record<Host, number>;
  maxPerMinute: Record<Host, number>;
  throttles: number;
  /** Median age (s) of what the 1,000 most requested keys were served, per kind. */
  topAges: Map<Kind, { median: number; requests: number }>;
  coldAnswered: number;
}

/**
 * @param cacheless every request is a cold miss (nothing kept): what the budget fetches for callers
 *   when nothing is cached, the cold-miss capacity.
 */
function simulate(
  workload: Workload,
  ratePerMin: number,
  egresses: number,
  simulatedHours: number,
  cacheless = false,
): Result {
  const budgets: Record<Host, Budget> = {
    itunes: new Budget(limits.itunes.perMinute / 60, limits.itunes.burst, egresses, appleLimit.itunes),
    amp: new Budget(limits.amp.perMinute / 60, limits.amp.burst, egresses, appleLimit.amp),
  };
  const queues: Record<Host, DemandQueue> = { itunes: new DemandQueue(), amp: new DemandQueue() };
  const fetchedAt = new Map<string, number>();
  const batches = new Map<string, { sendAt: number; closesAt: number; ids: number }>();
  let demandWindow = -1;
  let demand = new Map<string, number>();
  let previousDemand = new Map<string, number>();
  const windowS = demandWindowSeconds;
  const staleS = ttl.staleSeconds;
  const requests = Math.round(ratePerMin * 60 * simulatedHours);
  const measureFrom = Math.max(0, requests - ratePerMin * 60);
  const measured: Result = {
    requests: 0,
    answered: 0,
    stale: 0,
    failedByRoute: new Map(),
    calls: { itunes: 0, amp: 0 },
    maxPerMinute: { itunes: 0, amp: 0 },
    throttles: 0,
    topAges: new Map(),
    coldAnswered: 0,
  };
  const callsAtStart = { itunes: 0, amp: 0 };
  const throttlesAtStart = { value: 0 };
  const served = new Map<string, { kind: Kind; ages: number[] }>();
  let nextDrain = 0;

  // The drainer's guaranteed share, as the catalog computes it for this many egresses.
  const intervals = guaranteedRefreshIntervals({
    ...config,
    budget: { ...config.budget, egresses: Array.from({ length: egresses }, (_, i) => ({ id: `e${i}` })) },
  });
  const guaranteedEvery: Record<Host, number | undefined> = {
    itunes: intervals.get('itunes'),
    amp: intervals.get('apple-amp'),
  };
  const nextTurn: Record<Host, number> = { itunes: 0, amp: 0 };
  const drain = (now: number) => {
    for (const host of ['itunes', 'amp'] as Host[]) {
      const budget = budgets[host];
      if (queues[host].size === 0) continue;
      let calls = budget.whole(now) - refreshReserveTokens;
      // No spare token: the guaranteed turn (one replica's) queues for a token like a caller.
      let maxWait = 0;
      if (calls < 1) {
        const every = guaranteedEvery[host];
        if (every === undefined || now < nextTurn[host]) continue;
        nextTurn[host] = now + every / 1000;
        calls = 1;
        maxWait = maxWaitS;
      }
      const taken = queues[host].take(refreshMaxKeys);
      const { chosen, rest } = chooseRefreshes(taken, calls, batchMaxIds);
      for (const r of rest) queues[host].set(r.resource, r.demand);
      const sent = new Map<string, number>();
      for (const r of chosen) {
        const group = r.resource.group;
        let at = group === undefined ? undefined : sent.get(group);
        if (at === undefined) {
          at = budget.take(now, maxWait);
          if (at === undefined) {
            // Refused: dropped, as the catalog drops a failed refresh (queued again when next served).
            continue;
          }
          if (group !== undefined) sent.set(group, at);
        }
        fetchedAt.set(r.key, at);
      }
    }
  };

  for (let i = 0; i < requests; i++) {
    const now = (i * 60) / ratePerMin;
    while (nextDrain <= now) {
      if (!cacheless) drain(nextDrain);
      nextDrain += refreshIntervalMs / 1000;
    }
    const query = workload.next();
    const resource = resourceOf(query);
    const measuring = i >= measureFrom;
    if (i === measureFrom) {
      callsAtStart.itunes = budgets.itunes.total;
      callsAtStart.amp = budgets.amp.total;
      throttlesAtStart.value = budgets.itunes.throttles + budgets.amp.throttles;
    }
    if (!resource) continue;
    // Demand over the sliding window, as the refresh queue counts it.
    const window = Math.floor(now / windowS);
    if (window !== demandWindow) {
      previousDemand = window === demandWindow + 1 ? demand : new Map();
      demand = new Map();
      demandWindow = window;
    }
    demand.set(resource.key, (demand.get(resource.key) ?? 0) + 1);
    const queue = queues[resource.host];
    queue.bump(resource.key);

    let age: number | undefined;
    const at = cacheless ? undefined : fetchedAt.get(resource.key);
    if (at !== undefined && now - at < resource.freshS) {
      age = now - at;
    } else if (at !== undefined && now - at < staleS) {
      age = now - at;
      if (measuring) measured.stale++;
      if (!queue.has(resource.key)) {
        const weight = 1 - (now - window * windowS) / windowS;
        queue.set(resource, (demand.get(resource.key) ?? 0) + (previousDemand.get(resource.key) ?? 0) * weight);
      }
    } else {
      // A cold miss: join a batch of its group still gathering ids, or get a token within the bound.
      const batch = resource.group === undefined ? undefined : batches.get(resource.group);
      if (batch && now <= batch.closesAt && batch.ids < batchMaxIds) {
        batch.ids++;
        age = 0;
      } else {
        const sendAt = budgets[resource.host].take(now, maxWaitS);
        if (sendAt !== undefined) {
          age = 0;
          if (resource.group !== undefined)
            batches.set(resource.group, {
              sendAt,
              closesAt: Math.max(sendAt, now + batchWindowMs / 1000) + latencyMs / 1000,
              ids: 1,
            });
        }
      }
      if (age !== undefined) {
        if (!cacheless) fetchedAt.set(resource.key, now);
        if (measuring) measured.coldAnswered++;
      }
    }
    if (!measuring) continue;
    measured.requests++;
    if (age === undefined) {
      measured.failedByRoute.set(query.route, (measured.failedByRoute.get(query.route) ?? 0) + 1);
      continue;
    }
    measured.answered++;
    let entry = served.get(resource.key);
    if (!entry) served.set(resource.key, (entry = { kind: resource.kind, ages: [] }));
    entry.ages.push(age);
  }
  measured.calls = { itunes: budgets.itunes.total - callsAtStart.itunes, amp: budgets.amp.total - callsAtStart.amp };
  measured.maxPerMinute = { itunes: budgets.itunes.maxPerMinute, amp: budgets.amp.maxPerMinute };
  measured.throttles = budgets.itunes.throttles + budgets.amp.throttles - throttlesAtStart.value;
  const top = [...served.entries()].sort((a, b) => b[1].ages.length - a[1].ages.length).slice(0, 1000);
  const byKind = new Map<Kind, number[]>();
  for (const [, { kind, ages }] of top) byKind.set(kind, [...(byKind.get(kind) ?? []), ...ages]);
  for (const [kind, ages] of byKind) {
    ages.sort((a, b) => a - b);
    measured.topAges.set(kind, { median: ages[Math.floor(ages.length / 2)], requests: ages.length });
  }
  return measured;
}

const goals: Partial<Record<Kind, number>> = {
  details: ttl.detailsSeconds,
  'recent reviews': ttl.recentReviewsSeconds,
};
const pct = (n: number, d: number) => (d === 0 ? '–' : `${((100 * n) / d).toFixed(2)} %`);
const duration = (s: number) =>
  s >= 3600 ? `${(s / 3600).toFixed(1)} h` : s >= 60 ? `${(s / 60).toFixed(0)} min` : `${s.toFixed(0)} s`;

async function main(): Promise<void> {
  const emulator = await startStoreEmulator({ port: 0 });
  const listing = await new EmulatorControlClient(emulator.url).catalogue();
  await emulator.close();
  const workload = () =>
    new Workload(listing, { apps: 10_000, storefronts: 20, zipfS: Number(process.env.BENCH_ZIPF_S ?? 1), seed: 1 });
  const write = (line = '') => process.stdout.write(`${line}\n`);
  write(`upstream budget model: the last of ${hours} virtual hours, Zipf mix over 10,000 apps and 20 storefronts`);
  write(
    `limits per egress: iTunes ${limits.itunes.perMinute}/min burst ${limits.itunes.burst} (Apple's: ${appleItunesPerMinute}/min), web catalogue ${limits.amp.perMinute}/min burst ${limits.amp.burst}; ` +
      `cold-miss wait ≤ ${config.rateLimitMaxWaitMs} ms; refresh every ${refreshIntervalMs} ms above ${refreshReserveTokens} token(s), ≤ ${refreshMaxKeys} keys, batches ≤ ${batchMaxIds} ids; demand window ${demandWindowSeconds} s`,
  );
  write(
    `freshness (s): details ${ttl.detailsSeconds}, lists ${ttl.listsSeconds}, search ${ttl.searchSeconds}, recent reviews ${ttl.recentReviewsSeconds}, reviews ${ttl.reviewsSeconds}; stale up to ${ttl.staleSeconds}`,
  );
  write();
  write(
    '| calls/min | egresses | answered 200 | of which stale | failed (by route) | upstream calls/min iTunes, web | most calls/min one egress iTunes, web | throttles | top-1,000 median age: details, recent reviews |',
  );
  write('|--:|--:|--:|--:|:--|--:|--:|--:|:--|');
  const verdicts: string[] = [];
  for (const rate of rates) {
    for (const egresses of egressCounts) {
      const r = simulate(workload(), rate, egresses, hours);
      const failed = [...r.failedByRoute.entries()]
        .sort((a, b) => b[1] - a[1])
        .map(([route, n]) => `${route} ${pct(n, r.requests)}`);
      const ages = (['details', 'recent reviews'] as Kind[]).map((kind) => {
        const a = r.topAges.get(kind);
        return a ? `${duration(a.median)}${a.median <= goals[kind]! ? ' ✓' : ' ✗'}` : '–';
      });
      write(
        `| ${rate} | ${egresses} | ${pct(r.answered, r.requests)} | ${pct(r.stale, r.requests)} | ${failed.join(', ') || 'none'} | ${(r.calls.itunes / 60).toFixed(1)} , ${(r.calls.amp / 60).toFixed(1)} | ${r.maxPerMinute.itunes} , ${r.maxPerMinute.amp} | ${r.throttles} | ${ages.join(', ')} |`,
      );
      const met =
        r.answered / r.requests >= 0.995 && r.throttles === 0 && ages.every((a) => a.endsWith('✓') || a === '–');
      if (met) verdicts.push(`${rate} calls/min: every target met with ${egresses} egress(es)`);
    }
  }
  write();
  write(
    verdicts.length > 0
      ? verdicts.join('\n')
      : 'no budget in the table meets every target: the rows above are the frontier',
  );
  write();
  // Cold-miss capacity: nothing cached, far more distinct requests than any budget answers.
  const coldRate = 10_000;
  const coldMinutes = 30;
  const capacity = (egresses: number) =>
    simulate(workload(), coldRate, egresses, coldMinutes / 60, true).coldAnswered / coldMinutes;
  const base = capacity(1);
  const four = capacity(4);
  write(
    `cold-miss capacity (nothing cached, ${coldRate} calls/min): 1 egress ${base.toFixed(0)} answered/min, 4 egresses ${four.toFixed(0)}/min, ${(four / base).toFixed(2)}×`,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
