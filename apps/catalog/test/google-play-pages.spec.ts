/*
 * Google Play's page conventions, read from real public captures (test/fixtures/google-play/README.md).
 */
import { ErrorCode } from '@appcat/contracts';
import { readFileSync } from 'node:fs';
import {
  appDetails,
  clusterPage,
  developerPage,
  reviewsForm,
  reviewsPage,
  searchPage,
  serviceRequests,
  similarClusterPath,
  similarPage,
} from '../src/google-play/play-pages.js';
import { playRefusal } from '../src/google-play/play-upstream.js';

const BASE = 'https://play.google.com';
const fixture = (name: string) => readFileSync(new URL(`./fixtures/google-play/${name}`, import.meta.url), 'utf8');
const response = (status: number, body = '', headers: Record<string, string> = {}) => ({
  status,
  body,
  headers: new Headers(headers),
});

describe("Google Play's developer pages", () => {
  it("reads the first page of a developer reached by id, and the next page's token", () => {
    const page = developerPage(fixture('developer-5700313618786177705.html'), BASE, 'play.google.com');
    expect(page.apps).toHaveLength(10);
    expect(page.apps[0]).toMatchObject({
      appId: 'com.google.android.apps.messaging',
      title: 'Google Messages',
      url: 'https://play.google.com/store/apps/details?id=com.google.android.apps.messaging',
      developer: 'Google LLC',
      currency: 'USD',
      price: 0,
      free: true,
      scoreText: '4.3',
      score: 4.303828,
    });
    expect(page.apps.every((app) => app.developer === 'Google LLC' && app.icon?.startsWith('https://'))).toBe(true);
    expect(page.nextToken).toMatch(/^YpUBSj8K/);
  });

  it('reads a developer reached by name, a paid app with its price in units, and no next page', () => {
    const page = developerPage(fixture('developer-mojang.html'), BASE, 'play.google.com');
    expect(page.apps.map((app) => app.appId)).toEqual([
      'com.mojang.minecraftpe',
      'com.mojang.minecraftedu',
      'com.mojang.minecraftedu_preview',
    ]);
    expect(page.apps[0]).toMatchObject({
      title: 'Minecraft: Dream it, Build it!',
      price: 6.99,
      free: false,
      currency: 'USD',
    });
    expect(page.nextToken).toBeUndefined();
  });

  it('reads a continuation page (its apps in the cluster layout, one without a rating) and its error frame as the end', () => {
    const page = clusterPage(fixture('continuation-last-page.txt'), BASE, 'play.google.com');
    expect(page.apps.map((app) => [app.appId, app.score])).toEqual([
      ['com.google.android.apps.classroom', 2.8394365],
      ['com.google.android.apps.adm', 4.2094746],
      ['com.google.android.apps.seekh', undefined],
    ]);
    expect(page.nextToken).toBeUndefined();
    expect(clusterPage(fixture('continuation-error.txt'), BASE, 'play.google.com')).toEqual({ apps: [] });
  });

  it.each([
    ['a page without its ds:3 block', '<html><body>nothing</body></html>', 'a developer page without its ds:3 data'],
    [
      'a ds:3 block without the app list',
      "<script>AF_initDataCallback({key: 'ds:3', hash: '1', data:[[null,[[]]]], sideChannel: {}});</script>",
      'a developer page without its app list',
    ],
    [
      'a page whose list is empty',
      `<script>AF_initDataCallback({key: 'ds:3', hash: '1', data:${JSON.stringify([[null, [Object.assign(Array(22).fill(null), { 21: [[]] })]]])}, sideChannel: {}});</script>`,
      'a developer page listing no apps',
    ],
  ])('refuses %s as unreadable, never an empty list', (_what, html, message) => {
    expect(() => developerPage(html, BASE, 'play.google.com')).toThrow(
      expect.objectContaining({
        code: ErrorCode.UpstreamBadResponse,
        message: `upstream store answered ${message} (play.google.com)`,
      }),
    );
  });
});

describe("Google Play's app pages", () => {
  it('reads a paid app from its ds:5 block, its price in units and its developer id as text', () => {
    const app = appDetails(
      fixture('details-com.mojang.minecraftpe.html'),
      'com.mojang.minecraftpe',
      BASE,
      'play.google.com',
    );
    expect(app).toMatchObject({
      appId: 'com.mojang.minecraftpe',
      url: 'https://play.google.com/store/apps/details?id=com.mojang.minecraftpe',
      title: 'Minecraft: Dream it, Build it!',
      installs: '50,000,000+',
      minInstalls: 50_000_000,
      scoreText: '4.3',
      ratings: 5_715_302,
      reviews: 633_450,
      price: 6.99,
      free: false,
      currency: 'USD',
      developer: 'Mojang',
      developerId: '4772240228547998649',
      genre: 'Arcade',
      genreId: 'GAME_ARCADE',
      contentRating: 'Everyone 10+',
    });
    expect(app.summary).toMatch(/^Millions of crafters/);
    expect(app.icon).toMatch(/^https:\/\/play-lh\.googleusercontent\.com\//);
  });

  it('reads a free app', () => {
    const app = appDetails(
      fixture('details-com.google.android.apps.translate.html'),
      'com.google.android.apps.translate',
      BASE,
      'play.google.com',
    );
    expect(app).toMatchObject({
      title: 'Google Translate',
      price: 0,
      free: true,
      developer: 'Google LLC',
      genreId: 'TOOLS',
    });
    expect(app.developerId).toBe('5700313618786177705');
  });

  it('refuses a page without its details as unreadable, never "no such app"', () => {
    expect(() =>
      appDetails(fixture('developer-mojang.html'), 'com.mojang.minecraftpe', BASE, 'play.google.com'),
    ).toThrow(expect.objectContaining({ code: ErrorCode.UpstreamBadResponse }));
  });
});

describe("Google Play's search pages", () => {
  it('reads the featured exact match first, then the list, from the ds:4 sections', () => {
    const page = searchPage(fixture('search-panda.html'), BASE, 'play.google.com');
    expect(page.apps).toHaveLength(20);
    expect(page.apps[0]).toMatchObject({ appId: 'com.pandaexpress.app', title: 'Panda Express', free: true });
    expect(page.apps[1]).toMatchObject({
      appId: 'com.sinyee.babybus.restaurant',
      title: "Little Panda's Restaurant",
      developer: 'BabyBus',
    });
    expect(new Set(page.apps.map((app) => app.appId)).size).toBe(20);
    expect(page.nextToken).toBeUndefined();
    expect(() => searchPage('<html></html>', BASE, 'play.google.com')).toThrow(
      expect.objectContaining({ code: ErrorCode.UpstreamBadResponse }),
    );
  });
});

describe("Google Play's refusals", () => {
  it.each([
    [
      response(302, '', { location: 'https://consent.google.com/ml?continue=https://play.google.com/' }),
      'a redirect to consent.google.com',
    ],
    [
      response(503, '<html>Our systems have detected unusual traffic from your computer network.</html>'),
      'HTTP 503 with a captcha',
    ],
    [response(200, '<script src="https://www.google.com/recaptcha/api.js"></script>'), 'HTTP 200 with a captcha'],
    [response(200, '<html><body>PlayGatewayError</body></html>'), 'HTTP 200 with PlayGatewayError'],
    [response(200, fixture('developer-mojang.html')), undefined],
    [response(302, '', { location: 'https://play.google.com/store/apps/dev?id=1' }), undefined],
    [response(404, 'not found'), undefined],
  ])('%#: %o is %p', (answer, refusal) => {
    expect(playRefusal(answer)).toBe(refusal);
  });
});

describe("Google Play's reviews (batchexecute UsvDTd)", () => {
  const TRANSLATE = 'com.google.android.apps.translate';

  it('asks for a page as its site does: the order, the count and, after the first page, the token', () => {
    const request = (form: string) => {
      const envelope = JSON.parse(new URLSearchParams(form).get('f.req')!) as [[[string, string, null, string]]];
      return [envelope[0][0][0], JSON.parse(envelope[0][0][1]) as unknown];
    };
    expect(request(reviewsForm(TRANSLATE, 'recent', 50))).toEqual([
      'UsvDTd',
      [null, null, [2, 2, [50, null, null], null, []], [TRANSLATE, 7]],
    ]);
    expect(request(reviewsForm(TRANSLATE, 'helpful', 50, 'CtgB'))).toEqual([
      'UsvDTd',
      [null, null, [2, 1, [50, null, 'CtgB'], null, []], [TRANSLATE, 7]],
    ]);
  });

  it('reads a recorded first page: every review, the developer reply where there is one, and the next token', () => {
    const page = reviewsPage(fixture(`reviews-${TRANSLATE}.txt`), TRANSLATE, BASE, 'play.google.com');
    expect(page.reviews).toHaveLength(150);
    expect(page.reviews[0]).toEqual({
      id: '017452fc-0d4b-471d-b406-bcf0f52387a7',
      appId: TRANSLATE,
      userName: 'Formann Ali',
      userUrl: '',
      userImage: expect.stringMatching(/^https:\/\/play-lh\.googleusercontent\.com\/a\//),
      version: '',
      score: 5,
      title: '',
      text: 'niec',
      url: `https://play.google.com/store/apps/details?id=${TRANSLATE}&reviewId=017452fc-0d4b-471d-b406-bcf0f52387a7`,
      updated: '2026-07-06T13:55:24.077Z',
      voteSum: 0,
      voteCount: 0,
    });
    expect(page.reviews[1].version).toBe('10.24.48.939568180.6-release');
    expect(page.reviews.find((r) => r.reply)?.reply).toEqual({
      text: expect.stringMatching(/^Hi .+ We'd like our users to have the best possible experience/),
      updated: expect.stringMatching(/^2026-07-0\dT/),
    });
    expect(page.reviews.every((r) => r.score >= 1 && r.score <= 5 && r.updated.startsWith('2026-'))).toBe(true);
    expect(page.nextToken).toMatch(/^CtgBIs8BAU60/);
    expect(page.rejected).toBeUndefined();
  });

  it('reads the recorded page its token led to, with thumbs up as votes', () => {
    const page = reviewsPage(fixture(`reviews-${TRANSLATE}-page2.txt`), TRANSLATE, BASE, 'play.google.com');
    expect(page.reviews[0]).toMatchObject({ id: '631c8899-005f-47b7-9480-0b480748eebf', score: 4, text: 'good' });
    expect(page.reviews.slice(0, 10).map((r) => r.voteSum)).toEqual([0, 0, 0, 0, 1, 1, 4, 1, 0, 0]);
    expect(page.nextToken).toMatch(/^CtsBItIBAU60/);
  });

  it('takes an error frame as a page of none, marked rejected, and unreadable reviews as drift', () => {
    const frame = (payload: unknown) =>
      `)]}'\n\n${JSON.stringify([['wrb.fr', 'UsvDTd', payload === null ? null : JSON.stringify(payload), null, null, null, 'generic']])}`;
    expect(reviewsPage(frame(null), TRANSLATE, BASE, 'play.google.com')).toEqual({ reviews: [], rejected: true });
    expect(reviewsPage(frame([[], null]), TRANSLATE, BASE, 'play.google.com')).toEqual({ reviews: [] });
    expect(() => reviewsPage(frame([[['only an id']], null]), TRANSLATE, BASE, 'play.google.com')).toThrow(
      expect.objectContaining({
        code: ErrorCode.UpstreamBadResponse,
        message: 'upstream store answered a reviews page whose reviews are unreadable (play.google.com)',
      }),
    );
    expect(() => reviewsPage(fixture('continuation-error.txt'), TRANSLATE, BASE, 'play.google.com')).toThrow(
      expect.objectContaining({ code: ErrorCode.UpstreamBadResponse }),
    );
  });
});

describe("Google Play's similar apps (the app page's ag2B9c cluster, then the cluster page)", () => {
  it("finds the recorded app page's Similar apps cluster, not its More by cluster", () => {
    const html = fixture('similar-details-com.google.android.apps.translate.html');
    expect(serviceRequests(html)?.get('ag2B9c')).toEqual(['ds:8']);
    expect(similarClusterPath(html, 'play.google.com')).toMatch(
      /^\/store\/apps\/collection\/cluster\?gsr=SnFqGGdySlk4Y25sTVo1VEdnNkJDM1NTYmc9PcICUQolCiFjb20uZ29vZ2xlLmFuZHJvaWQuYXBwcy50cmFuc2xhdGUQ/,
    );
  });

  it('finds no cluster on a page that links none, and refuses a page without its data table', () => {
    const html = fixture('similar-details-com.google.android.apps.translate.html').replace(
      /\/store\/apps\/collection\/cluster\?/g,
      '/store/apps/elsewhere?',
    );
    expect(similarClusterPath(html, 'play.google.com')).toBeUndefined();
    expect(() => similarClusterPath(fixture('details-com.mojang.minecraftpe.html'), 'play.google.com')).toThrow(
      expect.objectContaining({
        message: 'upstream store answered an app page without its data service table (play.google.com)',
      }),
    );
  });

  it("reads the recorded cluster page's apps in the developer list's shape", () => {
    const apps = similarPage(
      fixture('similar-cluster-com.google.android.apps.translate.html'),
      BASE,
      'play.google.com',
    );
    expect(apps).toHaveLength(50);
    expect(apps[0]).toMatchObject({
      appId: 'com.google.android.inputmethod.latin',
      url: 'https://play.google.com/store/apps/details?id=com.google.android.inputmethod.latin',
      developer: 'Google LLC',
      currency: 'USD',
      price: 0,
      free: true,
    });
    expect(apps.map((app) => app.developer)).toContain('Tool Apps Hub');
    expect(apps.every((app) => app.title && app.icon?.startsWith('https://'))).toBe(true);
  });

  it('refuses a linked cluster page that lists nothing: implausible, never an empty list', () => {
    const empty = `<script>AF_initDataCallback({key: 'ds:3', hash: '1', data:${JSON.stringify([[null, [Object.assign(Array(22).fill(null), { 21: [[], ['Similar apps']] })]]])}, sideChannel: {}});</script>`;
    expect(() => similarPage(empty, BASE, 'play.google.com')).toThrow(
      expect.objectContaining({
        code: ErrorCode.UpstreamBadResponse,
        message: 'upstream store answered a similar apps page listing no apps (play.google.com)',
      }),
    );
  });
});
