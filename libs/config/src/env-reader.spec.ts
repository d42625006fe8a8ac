import { ConfigError, readConfig } from './env-reader.js';

describe('readConfig', () => {
  it('applies defaults when nothing is set', () => {
    const config = readConfig((env) => ({ port: env.int('PORT', 3000), url: env.url('BASE', 'http://x:1/') }), {});
    expect(config).toEqual({ port: 3000, url: 'http://x:1' });
  });

  it('reports every problem at once', () => {
    const read = () =>
      readConfig(
        (env) => ({
          port: env.int('PORT', 3000, { min: 1, max: 65535 }),
          url: env.url('BASE', 'http://x'),
          flag: env.bool('FLAG', false),
        }),
        { PORT: '70000', BASE: 'ftp://nope', FLAG: 'maybe' },
      );
    expect(read).toThrow(ConfigError);
    try {
      read();
    } catch (error) {
      expect((error as ConfigError).problems).toHaveLength(3);
      expect((error as Error).message).toContain('PORT must be an integer from 1 to 65535');
    }
  });
});
