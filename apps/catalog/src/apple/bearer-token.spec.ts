import { readBearerToken } from './bearer-token.js';

const meta = (config: unknown) => `<meta name="web-experience-app/config/environment" content="${encodeURIComponent(JSON.stringify(config))}">`;

describe('readBearerToken', () => {
  it('reads MEDIA_API.token from the page config', () => {
    expect(readBearerToken(`<html><head>\n${meta({ MEDIA_API: { token: 'eyJ.abc.def' } })}\n</head></html>`)).toBe('eyJ.abc.def');
  });

  it('falls back to the raw pattern when the config does not parse', () => {
    expect(readBearerToken('<meta name="web-experience-app/config/environment" content="%7B%22MEDIA_API%22%3A%7B%22token%22%3A%22eyJ.x.y%22%7D%2C%ZZ">')).toBe('eyJ.x.y');
  });

  it('finds nothing on a page without it', () => {
    expect(readBearerToken('<html><body>Not Found</body></html>')).toBeUndefined();
    expect(readBearerToken(meta({ MEDIA_API: {} }))).toBeUndefined();
  });
});
