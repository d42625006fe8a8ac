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
