import { ConfigError } from '@appcat/config';
import { DEFAULT_UPSTREAM_USER_AGENT, readCatalogConfig } from './config.js';

describe('readCatalogConfig', () => {
  it('defaults every upstream to the local store emulator', () => {
    expect(readCatalogConfig({})).toMatchObject({
      store: 'apple',
      upstreamTimeoutMs: 5000,
      apple: {
        itunesBaseUrl: 'http://127.0.0.1:4010',
        webBaseUrl: 'http://127.0.0.1:4010',
        ampApiBaseUrl: 'http://127.0.0.1:4010',
        tokenPagePath: '/us/app/facebook/id284882215',
        userAgent: DEFAULT_UPSTREAM_USER_AGENT,
      },
      nats: { servers: ['nats://127.0.0.1:4222'] },
    });
  });

  it('rejects an unknown store, a bad timeout, a non-HTTP base URL and a token page path that names a host', () => {
    const read = () =>
      readCatalogConfig({ CATALOG_STORE: 'google', UPSTREAM_TIMEOUT_MS: '0', ITUNES_BASE_URL: 'file:///etc', APPLE_TOKEN_PAGE_PATH: '//evil.example/x' });
    expect(read).toThrow(ConfigError);
    try {
      read();
    } catch (error) {
      expect((error as ConfigError).problems).toHaveLength(4);
    }
  });
});
