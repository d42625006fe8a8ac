import { REFERENCE_IDS, startStoreEmulator, type StoreEmulator } from '../src/index.js';
import { get, ITUNES_USER_AGENT } from './helpers.js';

const SAMPLE_PATHS = [
  '/search?term=chess&country=us&limit=200',
  '/search?term=weather&country=jp&limit=200',
  `/lookup?id=${REFERENCE_IDS.developer}&entity=software&limit=200`,
  `/us/rss/customerreviews/page=3/id=${REFERENCE_IDS.app}/sortby=mostHelpful/xml`,
  `/us/app/id${REFERENCE_IDS.app}`,
];

async function snapshot(emulator: StoreEmulator): Promise<string[]> {
  return Promise.all(
    SAMPLE_PATHS.map(async (path) =>
      (await get(emulator.url, path, { 'user-agent': ITUNES_USER_AGENT })).text.replaceAll(emulator.url, ''),
    ),
  );
}

describe('store emulator', () => {
  const started: StoreEmulator[] = [];
  const start = async (seed?: number) => {
    const emulator = await startStoreEmulator({ seed });
    started.push(emulator);
    return emulator;
  };
  afterAll(() => Promise.all(started.map((e) => e.close())));

  it('generates the same catalogue from the same seed, and another from another seed', async () => {
    const [a, b, c] = await Promise.all([start(42), start(42), start(43)]);
    const [snapA, snapB, snapC] = await Promise.all([snapshot(a), snapshot(b), snapshot(c)]);
    expect(snapA).toEqual(snapB);
    expect(snapA[0]).not.toEqual(snapC[0]);
    expect(a.token()).toBe(b.token());
    // The reference ids exist whatever the seed.
    expect(snapC[2]).toContain('"artistName":"Meta Platforms, Inc."');
  });

  // How fast it starts is a speed figure, not a test's business: a busy CI machine took 2 s.
  it('starts with thousands of apps', async () => {
    const emulator = await start(99);
    const found = (await get(emulator.url, '/search?term=e&country=us&limit=200')).json<{ resultCount: number }>();
    expect(found.resultCount).toBe(200);
  });

  it('counts the requests it serves, errors included', async () => {
    const emulator = await start();
    expect(emulator.requestCount()).toBe(0);
    await get(emulator.url, '/lookup?id=1');
    await get(emulator.url, '/v1/catalog/us/apps/1');
    await get(emulator.url, '/nowhere');
    expect(emulator.requestCount()).toBe(3);
  });

  it('lets a request hook answer instead, delay, or drop the connection', async () => {
    const emulator = await start();
    emulator.setRequestHook((request) =>
      request.path === '/lookup' ? { response: { status: 503, body: '' } } : undefined,
    );
    expect((await get(emulator.url, '/lookup?id=1')).status).toBe(503);
    expect((await get(emulator.url, '/search?term=chess')).status).toBe(200);
    emulator.setRequestHook(() => ({ delayMs: 150 }));
    const began = performance.now();
    expect((await get(emulator.url, '/lookup?id=1')).status).toBe(200);
    expect(performance.now() - began).toBeGreaterThanOrEqual(140);
    // Held on a gate: no answer until the test opens it, however long that is.
    let open!: () => void;
    emulator.setRequestHook(() => ({ until: new Promise<void>((resolve) => (open = resolve)) }));
    let answered = false;
    const held = get(emulator.url, '/lookup?id=1').then((response) => ((answered = true), response));
    while (emulator.requestCount() < 4) await new Promise((resolve) => setTimeout(resolve, 10));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(answered).toBe(false);
    open();
    expect((await held).status).toBe(200);
    emulator.setRequestHook(() => ({ destroy: true }));
    await expect(get(emulator.url, '/lookup?id=1')).rejects.toThrow();
    emulator.setRequestHook();
    expect((await get(emulator.url, '/lookup?id=1')).status).toBe(200);
  });

  it('listens on the port it is given', async () => {
    const probe = await start();
    const { port } = probe;
    await probe.close();
    started.splice(started.indexOf(probe), 1);
    const emulator = await startStoreEmulator({ port, host: '127.0.0.1' });
    started.push(emulator);
    expect(emulator.url).toBe(`http://127.0.0.1:${port}`);
  });
});
