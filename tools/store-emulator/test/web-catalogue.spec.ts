import { moduleScriptPath, REFERENCE_IDS, startStoreEmulator, type StoreEmulator } from '../src/index.js';
import { get, moduleScriptOf, tokenFromPage } from './helpers.js';

interface Resource {
  id: string;
  type: string;
  href: string;
  attributes?: Record<string, unknown>;
  relationships?: Record<string, { href: string; data: Resource[] }>;
}

describe('web catalogue (amp-api)', () => {
  let emulator: StoreEmulator;
  let auth: Record<string, string>;
  beforeAll(async () => {
    emulator = await startStoreEmulator({ seed: 7 });
    const page = await get(emulator.url, `/us/app/facebook/id${REFERENCE_IDS.app}`);
    auth = { authorization: `Bearer ${await tokenFromPage(emulator.url, page.text)}` };
  });
  afterAll(() => emulator.close());

  it('carries the token in the module script the page head loads, not in a meta tag, and 404s unknown pages', async () => {
    const page = await get(emulator.url, `/us/app-bundle/meta-essentials/id${REFERENCE_IDS.bundle}`);
    expect(page.status).toBe(200);
    expect(page.text).not.toContain('web-experience-app/config/environment');
    expect(page.text).not.toContain(emulator.token());
    expect(moduleScriptOf(page.text)).toBe(moduleScriptPath(emulator.token()));
    expect(moduleScriptOf(page.text)).toMatch(/^\/assets\/index~[0-9a-f]{10}\.js$/);
    const script = await get(emulator.url, moduleScriptOf(page.text));
    expect(script.headers.get('content-type')).toContain('text/javascript');
    expect(await tokenFromPage(emulator.url, page.text)).toBe(emulator.token());
    expect(emulator.token()).toMatch(/^eyJhbGci/);
    expect((await get(emulator.url, `/us/app/id${REFERENCE_IDS.japanOnlyApp}`)).status).toBe(404);
  });

  it('moves the token when told to drift: back to the meta tag, or nowhere', async () => {
    const page = () => get(emulator.url, `/us/app/id${REFERENCE_IDS.app}`);
    emulator.setDrift({ token: 'meta-tag' });
    const legacy = (await page()).text;
    expect(legacy).toMatch(/<meta name="web-experience-app\/config\/environment" content="%7B.*token%22%3A%22/);
    await expect(tokenFromPage(emulator.url, legacy)).rejects.toThrow('no token in the module script');
    emulator.setDrift({ token: 'nowhere' });
    const moved = (await page()).text;
    expect(moved).not.toContain(emulator.token());
    await expect(tokenFromPage(emulator.url, moved)).rejects.toThrow('no token in the module script');
    emulator.setDrift({ token: 'module-script' });
  });

  it('requires the bearer token on every endpoint', async () => {
    for (const path of [
      `/v1/catalog/us/apps/${REFERENCE_IDS.app}`,
      `/v1/catalog/us/app-bundles/${REFERENCE_IDS.bundle}`,
      '/v1/catalog/us/search?term=chess&types=app-bundles',
    ]) {
      expect((await get(emulator.url, path)).status).toBe(401);
      expect((await get(emulator.url, path, { authorization: 'Bearer not-the-token' })).status).toBe(401);
      expect((await get(emulator.url, path, auth)).status).toBe(200);
    }
  });

  it('stops accepting a token once it is rotated', async () => {
    const old = auth;
    emulator.rotateToken();
    expect((await get(emulator.url, `/v1/catalog/us/apps/${REFERENCE_IDS.app}`, old)).status).toBe(401);
    const oldScript = moduleScriptPath(old.authorization.slice('Bearer '.length));
    expect((await get(emulator.url, oldScript)).status).toBe(404);
    auth = {
      authorization: `Bearer ${await tokenFromPage(emulator.url, (await get(emulator.url, `/us/app/id${REFERENCE_IDS.app}`)).text)}`,
    };
    expect((await get(emulator.url, `/v1/catalog/us/apps/${REFERENCE_IDS.app}`, auth)).status).toBe(200);
  });

  it('includes customers-also-bought apps on request, never the app itself', async () => {
    const response = await get(
      emulator.url,
      `/v1/catalog/us/apps/${REFERENCE_IDS.app}?include=customers-also-bought-apps&platform=web`,
      auth,
    );
    const [app] = response.json<{ data: Resource[] }>().data;
    expect(app).toMatchObject({ id: '284882215', type: 'apps', href: '/v1/catalog/us/apps/284882215' });
    expect(app.attributes).toMatchObject({ name: 'Facebook', artistName: 'Meta Platforms, Inc.' });
    const similar = app.relationships!['customers-also-bought-apps'].data;
    expect(similar.length).toBeGreaterThan(3);
    expect(similar.every((s) => s.type === 'apps' && s.id !== app.id && typeof s.attributes?.name === 'string')).toBe(
      true,
    );
    const plain = (await get(emulator.url, `/v1/catalog/us/apps/${REFERENCE_IDS.app}`, auth)).json<{
      data: Resource[];
    }>().data[0];
    expect(plain.relationships!['customers-also-bought-apps']).toBeUndefined();
    const sparse = `/v1/catalog/us/apps/${REFERENCE_IDS.app}?platform=iphone&include=customers-also-bought-apps&sparseLimit[apps:customers-also-bought-apps]=2`;
    expect(
      (await get(emulator.url, sparse, auth))
        .json<{ data: Resource[] }>()
        .data[0].relationships!['customers-also-bought-apps'].data.map((a) => a.id),
    ).toEqual(similar.slice(0, 2).map((a) => a.id));
  });

  it('fetches several apps at once and 404s an app not sold in the storefront', async () => {
    const many = (
      await get(
        emulator.url,
        `/v1/catalog/us/apps?ids=${REFERENCE_IDS.app},${REFERENCE_IDS.chessApp},${REFERENCE_IDS.japanOnlyApp}`,
        auth,
      )
    ).json<{ data: Resource[] }>();
    expect(many.data.map((r) => r.id)).toEqual([String(REFERENCE_IDS.app), String(REFERENCE_IDS.chessApp)]);
    const missing = await get(emulator.url, `/v1/catalog/us/apps/${REFERENCE_IDS.japanOnlyApp}`, auth);
    expect(missing.status).toBe(404);
    expect(missing.json<{ errors: { status: string }[] }>().errors[0].status).toBe('404');
  });

  it('serves a bundle with its apps as relationships', async () => {
    const [bundle] = (await get(emulator.url, `/v1/catalog/gb/app-bundles/${REFERENCE_IDS.bundle}`, auth)).json<{
      data: Resource[];
    }>().data;
    expect(bundle).toMatchObject({ id: '1482985563', type: 'app-bundles' });
    expect(bundle.attributes).toMatchObject({ name: 'Meta Essentials', artistName: 'Meta Platforms, Inc.' });
    expect(bundle.relationships!.apps.data.map((a) => a.id)).toEqual(['284882215', '454638411', '514643583']);
    expect(bundle.relationships!.apps.data[0].attributes).toBeUndefined();
    const included = (
      await get(emulator.url, `/v1/catalog/gb/app-bundles/${REFERENCE_IDS.bundle}?include=apps`, auth)
    ).json<{ data: Resource[] }>().data[0];
    expect(included.relationships!.apps.data[0].attributes?.name).toBe('Facebook');
    expect((included.attributes!.offers as { currencyCode: string }[])[0].currencyCode).toBe('GBP');
  });

  it('searches bundles with limit and offset paging', async () => {
    type Search = { results: Record<string, { data: Resource[]; next?: string }> };
    const first = (
      await get(emulator.url, '/v1/catalog/us/search?term=essentials&types=app-bundles&limit=10', auth)
    ).json<Search>();
    const bundles = first.results['app-bundles'];
    expect(bundles.data).toHaveLength(10);
    expect(bundles.data.every((b) => b.type === 'app-bundles')).toBe(true);
    expect(bundles.next).toContain('offset=10');
    const second = (
      await get(emulator.url, '/v1/catalog/us/search?term=essentials&types=app-bundles&limit=10&offset=10', auth)
    ).json<Search>();
    expect(second.results['app-bundles'].data[0].id).not.toBe(bundles.data[0].id);
    const none = (await get(emulator.url, '/v1/catalog/us/search?term=zzzzqqq&types=app-bundles', auth)).json<Search>();
    expect(none.results).toEqual({});
    expect((await get(emulator.url, '/v1/catalog/us/search?term=chess&types=app-bundles&limit=26', auth)).status).toBe(
      400,
    );
  });

  it('groups search results by type, in the order meta.results.order gives, or in an unknown grouping when told to drift', async () => {
    type Search = { results: Record<string, { data: Resource[] }>; meta: { results: { order: string[] } } };
    const both = (
      await get(emulator.url, '/v1/catalog/us/search?term=meta&types=apps,app-bundles&limit=5', auth)
    ).json<Search>();
    expect(Object.keys(both.results)).toEqual(['apps', 'app-bundles']);
    expect(both.meta.results.order).toEqual(['apps', 'app-bundles']);
    expect(both.results['app-bundles'].data.map((b) => b.id)).toContain(String(REFERENCE_IDS.bundle));
    emulator.setDrift({ searchGrouping: 'unknown' });
    const drifted = (
      await get(emulator.url, '/v1/catalog/us/search?term=meta&types=apps,app-bundles&limit=5', auth)
    ).json<Search>();
    emulator.setDrift({ searchGrouping: 'by-type' });
    expect(Object.keys(drifted.results)).toEqual(['top']);
    expect(drifted.results.top.data.map((r) => r.type)).toEqual(expect.arrayContaining(['apps', 'app-bundles']));
  });
});
