import { ArgsCodec, integer, oneOf, optionalText, ResourceKind, ResourceKinds, text } from './resource-descriptor.js';

interface PageArgs {
  country: string;
  lang: string | undefined;
  page: number;
  sort: 'recent' | 'helpful';
}

const codec = new ArgsCodec<PageArgs>({
  country: text,
  lang: optionalText,
  page: integer,
  sort: oneOf('recent', 'helpful'),
});

const kind = new ResourceKind<PageArgs, string>({
  kind: 'page',
  upstreams: ['host-a', 'host-b'],
  args: codec,
  key: (a) => `s:page:${a.country}:${a.page}`,
  freshness: () => ({ freshMs: 1, notFoundMs: 1, staleMs: 1 }),
  group: (a) => `g|${a.country}`,
  load: async (a) => `${a.country}/${a.page}/${a.sort}`,
});

describe('resource descriptors', () => {
  it('writes arguments in field order, absent values as null, and reads them back', () => {
    const args: PageArgs = { country: 'us', lang: undefined, page: 3, sort: 'helpful' };
    expect(codec.encode(args)).toEqual(['us', null, 3, 'helpful']);
    expect(codec.decode(['us', null, 3, 'helpful'])).toEqual(args);
  });

  it('refuses a job whose arguments do not fit, field by field', () => {
    expect(codec.decode(['us', null, '3', 'helpful'])).toBeUndefined();
    expect(codec.decode(['us', null, 3, 'newest'])).toBeUndefined();
    expect(codec.decode(['', null, 3, 'recent'])).toBeUndefined();
    expect(codec.decode(['us', null])).toBeUndefined();
  });

  it('rebuilds from a job exactly the request a route reads', async () => {
    const request = kind.request({ country: 'gb', lang: 'en-gb', page: 2, sort: 'recent' });
    expect(request.refresh).toEqual({
      upstream: 'host-a',
      group: 'g|gb',
      kind: 'page',
      args: ['gb', 'en-gb', 2, 'recent'],
    });
    const rebuilt = new ResourceKinds('s', [kind]).fromJob(request.refresh!);
    expect(rebuilt?.key).toBe(request.key);
    expect(await rebuilt?.load()).toBe('gb/2/recent');
  });

  it('names the upstreams of a cached key, in the order tried, by its store and kind only', () => {
    const kinds = new ResourceKinds('s', [kind]);
    expect(kinds.upstreamsOf('s:page:us:1')).toEqual(['host-a', 'host-b']);
    expect(kinds.upstreamsOf('other:page:us:1')).toBeUndefined();
    expect(kinds.upstreamsOf('s:unknown:us')).toBeUndefined();
    expect(kinds.fromJob({ upstream: 'host-a', kind: 'unknown', args: [] })).toBeUndefined();
  });
});
