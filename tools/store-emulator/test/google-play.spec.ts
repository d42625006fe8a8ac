/*
 * The emulator's Google Play side: developer pages in Google's structures, paged by its tokens, the
 * same for the same seed, and the blocks Google Play answers scrapers with.
 */
import { PLAY_BLOCKS, PLAY_REFERENCE, startStoreEmulator, type StoreEmulator } from '../src/index.js';

/** The `ds:3` block of a page, parsed. */
function ds3(html: string): unknown {
  const match =
    /AF_initDataCallback\(\{key: 'ds:3', hash: '\d+', data:([\s\S]*?), sideChannel: \{\}\}\);<\/script>/.exec(html);
  return match ? JSON.parse(match[1]) : undefined;
}
const at = (value: unknown, ...path: number[]) =>
  path.reduce<unknown>((v, i) => (Array.isArray(v) ? v[i] : undefined), value);

function nextPageForm(token: string): string {
  const inner = JSON.stringify([[null, [[10, [10, 100]], true, null, [96, 27]], null, token]]);
  return new URLSearchParams({ 'f.req': JSON.stringify([[['qnKhOb', inner, null, 'generic']]]) }).toString();
}

describe("the store emulator's Google Play side", () => {
  let emulator: StoreEmulator;
  beforeAll(async () => {
    emulator = await startStoreEmulator({ seed: 7 });
  });
  afterAll(() => emulator.close());
  beforeEach(() => emulator.clearFaults());

  const page = (path: string) =>
    fetch(emulator.url + path).then(async (r) => ({ status: r.status, body: await r.text() }));
  const more = (token: string, gl = 'us') =>
    fetch(`${emulator.url}/_/PlayStoreUi/data/batchexecute?rpcids=qnKhOb&hl=en&gl=${gl}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded;charset=UTF-8' },
      body: nextPageForm(token),
    }).then((r) => r.text());
  const payloadOf = (answer: string) => {
    expect(answer.startsWith(")]}'\n\n")).toBe(true);
    const frame = (JSON.parse(answer.slice(6)) as unknown[][])[0];
    expect(frame.slice(0, 2)).toEqual(['wrb.fr', 'qnKhOb']);
    return frame[2] === null ? null : JSON.parse(frame[2] as string);
  };

  it("serves a developer's page by id with its first apps in ds:3 and a token that pages through the rest", async () => {
    const first = await page(`/store/apps/dev?id=${PLAY_REFERENCE.googleLlc.id}&hl=en&gl=us`);
    expect(first.status).toBe(200);
    const root = at(ds3(first.body), 0, 1, 0, 21);
    expect(at(root, 0, 0, 14)).toBe('Google LLC');
    const ids = (at(root, 0) as unknown[]).map((entry) => at(entry, 0, 0));
    let token = at(root, 1, 3, 1) as string | null;
    while (token) {
      const payload = payloadOf(await more(token));
      ids.push(...(at(payload, 0, 6, 0) as unknown[]).map((entry) => at(entry, 12, 0)));
      token = (at(payload, 0, 6, 7, 1) as string | undefined) ?? null;
    }
    expect(ids).toHaveLength(PLAY_REFERENCE.googleLlc.apps);
    expect(new Set(ids).size).toBe(ids.length);
    // A token past the end, or not ours, is Google's error frame.
    expect(payloadOf(await more('not-a-token'))).toBeNull();
  });

  it('serves a developer by name with each entry wrapped once more, and 404 for unknown developers', async () => {
    const mojang = await page('/store/apps/developer?id=Mojang&hl=en&gl=us');
    const root = at(ds3(mojang.body), 0, 1, 0, 22);
    expect((at(root, 0) as unknown[]).length).toBe(3);
    expect(at(root, 0, 0, 0, 8, 1, 0)).toEqual([6_990_000, 'USD']);
    expect(at(root, 1, 3, 1)).toBeNull();
    for (const path of ['/store/apps/dev?id=1', '/store/apps/developer?id=Nobody%20Here', '/store/apps/dev?id=Mojang'])
      expect((await page(path)).status).toBe(404);
    expect(
      (await page(`/store/apps/developer?id=${encodeURIComponent(PLAY_REFERENCE.japanOnly.name)}&gl=us`)).status,
    ).toBe(404);
    expect(
      (await page(`/store/apps/developer?id=${encodeURIComponent(PLAY_REFERENCE.japanOnly.name)}&gl=jp`)).status,
    ).toBe(200);
  });

  it("serves an app's details page with its ds:5 block, in the country's currency, and 404 where it is not sold", async () => {
    const details = await page(`/store/apps/details?id=${PLAY_REFERENCE.minecraft.appId}&hl=en&gl=gb`);
    const match =
      /AF_initDataCallback\(\{key: 'ds:5', hash: '\d+', data:([\s\S]*?), sideChannel: \{\}\}\);<\/script>/.exec(
        details.body,
      );
    const root = at(JSON.parse(match![1]), 1, 2);
    expect([at(root, 0, 0), at(root, 68, 0), at(root, 57, 0, 0, 0, 0, 1, 0)]).toEqual([
      PLAY_REFERENCE.minecraft.title,
      'Mojang',
      [5_590_000, 'GBP'],
    ]);
    expect((await page('/store/apps/details?id=com.example.nothing')).status).toBe(404);
  });

  it('is the same for the same seed', async () => {
    const other = await startStoreEmulator({ seed: 7 });
    try {
      const path = `/store/apps/dev?id=${PLAY_REFERENCE.googleLlc.id}&gl=de`;
      expect((await fetch(other.url + path).then((r) => r.text())) === (await page(path)).body).toBe(true);
    } finally {
      await other.close();
    }
  });

  it('answers with each of its blocks when injected, counted per endpoint', async () => {
    emulator.resetStats();
    const path = `/store/apps/dev?id=${PLAY_REFERENCE.googleLlc.id}`;
    emulator.addFault({ ...PLAY_BLOCKS.consent, count: 1 });
    const consent = await fetch(emulator.url + path, { redirect: 'manual' });
    expect([consent.status, consent.headers.get('location')]).toEqual([
      302,
      expect.stringMatching(/^https:\/\/consent\.google\.com\//),
    ]);
    emulator.addFault({ ...PLAY_BLOCKS.captcha, count: 1 });
    expect(await page(path)).toEqual({ status: 503, body: expect.stringContaining('unusual traffic') });
    emulator.addFault({ ...PLAY_BLOCKS.gatewayError, count: 1 });
    expect(await page(path)).toEqual({ status: 200, body: expect.stringContaining('PlayGatewayError') });
    emulator.addFault({ ...PLAY_BLOCKS.throttled, count: 1 });
    expect((await page(path)).status).toBe(429);
    expect((await page(path)).status).toBe(200);
    expect(emulator.stats()).toMatchObject({ byEndpoint: { 'play-page': 5 }, faulted: 4 });
  });
});

describe("the store emulator's Google Play reviews and similar apps", () => {
  let emulator: StoreEmulator;
  beforeAll(async () => {
    emulator = await startStoreEmulator({ seed: 7 });
  });
  afterAll(() => emulator.close());

  const reviewsForm = (appId: string, order: number, count: number, token: string | null) => {
    const inner = JSON.stringify([null, null, [2, order, [count, null, token], null, []], [appId, 7]]);
    return new URLSearchParams({ 'f.req': JSON.stringify([[['UsvDTd', inner, null, 'generic']]]) }).toString();
  };
  /** The UsvDTd payload (null for Google's error frame); `rpcids` as scrapers send it, not matching the body. */
  const reviews = async (appId: string, order: number, count: number, token: string | null = null, gl = 'us') => {
    const answer = await fetch(`${emulator.url}/_/PlayStoreUi/data/batchexecute?rpcids=qnKhOb&hl=en&gl=${gl}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded;charset=UTF-8' },
      body: reviewsForm(appId, order, count, token),
    }).then((r) => r.text());
    expect(answer.startsWith(")]}'\n\n")).toBe(true);
    const frame = (JSON.parse(answer.slice(6)) as unknown[][])[0];
    expect(frame.slice(0, 2)).toEqual(['wrb.fr', 'UsvDTd']);
    return frame[2] === null ? null : (JSON.parse(frame[2] as string) as unknown[]);
  };
  const page = (path: string) =>
    fetch(emulator.url + path).then(async (r) => ({ status: r.status, body: await r.text() }));
  const block = (html: string, key: string) => {
    const match = new RegExp(
      `AF_initDataCallback\\(\\{key: '${key}', hash: '\\d+', data:([\\s\\S]*?), sideChannel: \\{\\}\\}\\);</script>`,
    ).exec(html);
    return match ? (JSON.parse(match[1]) as unknown) : undefined;
  };

  it("pages an app's reviews by the tokens it gives, in either order, the size asked", async () => {
    const ids: string[] = [];
    let token: string | null = null;
    do {
      const payload: unknown[] = (await reviews(PLAY_REFERENCE.minecraft.appId, 2, 50, token))!;
      const entries = payload[0] as unknown[][];
      ids.push(...entries.map((entry) => entry[0] as string));
      token = (at(payload, 1, 1) as string | undefined) ?? null;
    } while (token);
    expect(ids).toHaveLength(PLAY_REFERENCE.minecraft.reviews);
    expect(new Set(ids).size).toBe(ids.length);

    const newest = (await reviews(PLAY_REFERENCE.minecraft.appId, 2, 20))![0] as unknown[][];
    const times = newest.map((entry) => at(entry, 5, 0) as number);
    expect(times).toEqual([...times].sort((a, b) => b - a));
    const helpful = (await reviews(PLAY_REFERENCE.minecraft.appId, 1, 20))![0] as unknown[][];
    const thumbs = helpful.map((entry) => entry[6] as number);
    expect(thumbs).toEqual([...thumbs].sort((a, b) => b - a));
    expect(helpful[0][0]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-a[0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('answers an unknown app, or a token it did not give, with the error frame, and an unrated app with no reviews', async () => {
    expect(await reviews('com.example.nothing', 2, 50)).toBeNull();
    expect(await reviews(PLAY_REFERENCE.minecraft.appId, 2, 50, 'not-a-token')).toBeNull();
    expect(await reviews(PLAY_REFERENCE.unrated.appId, 2, 50)).toEqual([]);
  });

  it("links a rated app's similar apps cluster from its page (ag2B9c), and serves that cluster page", async () => {
    const details = await page(`/store/apps/details?id=${PLAY_REFERENCE.minecraft.appId}&hl=en&gl=us`);
    expect(details.body).toMatch(/var AF_dataServiceRequests = \{[^;]*'ds:8' : \{id:'ag2B9c'/);
    const clusters = at(block(details.body, 'ds:8'), 1, 1) as unknown[];
    const titles = clusters.map((cluster) => at(cluster, 21, 1, 0));
    expect(titles).toEqual(['More by Mojang', 'Similar apps']);
    const path = at(clusters[1], 21, 1, 2, 4, 2) as string;
    expect(path).toMatch(/^\/store\/apps\/collection\/cluster\?gsr=/);

    const cluster = await page(`${path}&gl=us&hl=en`);
    expect(cluster.status).toBe(200);
    const apps = at(block(cluster.body, 'ds:3'), 0, 1, 0, 21, 0) as unknown[];
    expect(apps).toHaveLength(50);
    expect(apps.map((entry) => at(entry, 0, 0))).not.toContain(PLAY_REFERENCE.minecraft.appId);
  });

  it("shows no rating and links no similar apps on an unrated app's page", async () => {
    const details = await page(`/store/apps/details?id=${PLAY_REFERENCE.unrated.appId}&hl=en&gl=us`);
    expect(at(block(details.body, 'ds:5'), 1, 2, 51)).toBeNull();
    const clusters = at(block(details.body, 'ds:8'), 1, 1) as unknown[];
    expect(clusters.map((cluster) => at(cluster, 21, 1, 0))).toEqual(['More by Mojang']);
    expect((await page('/store/apps/collection/cluster?gsr=bm90LW91cnM&gl=us')).status).toBe(404);
  });
});
