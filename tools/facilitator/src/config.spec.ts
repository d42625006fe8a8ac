import { ConfigError } from '@appcat/config';
import { readFacilitatorConfig } from './config.js';
import { DEFAULT_FACILITATOR_PRIVATE_KEY } from './server.js';
import { DEFAULT_SOLANA_FEE_PAYER_SECRET_KEY } from './solana.js';

describe('readFacilitatorConfig', () => {
  it('defaults to every local EVM chain at its own port, port 4020, anvil account #1, no auth', () => {
    expect(readFacilitatorConfig({})).toEqual({
      host: '127.0.0.1',
      port: 4020,
      rpcUrl: 'http://127.0.0.1:8545',
      networks: [
        { network: 'eip155:8453', rpcUrl: 'http://127.0.0.1:8545' },
        { network: 'eip155:143', rpcUrl: 'http://127.0.0.1:8546' },
        { network: 'eip155:137', rpcUrl: 'http://127.0.0.1:8547' },
        { network: 'eip155:42161', rpcUrl: 'http://127.0.0.1:8548' },
      ],
      privateKey: DEFAULT_FACILITATOR_PRIVATE_KEY,
      authToken: undefined,
      receiptTimeoutMs: 30_000,
      solana: { rpcUrl: 'http://127.0.0.1:8899' },
    });
  });

  it('settles Solana through the configured RPC and fee payer, or not at all with "none"', () => {
    expect(readFacilitatorConfig({ FACILITATOR_SOLANA_RPC_URL: 'none' }).solana).toBeUndefined();
    expect(
      readFacilitatorConfig({
        FACILITATOR_SOLANA_RPC_URL: 'http://ledger:8899/',
        FACILITATOR_SOLANA_SECRET_KEY: DEFAULT_SOLANA_FEE_PAYER_SECRET_KEY,
      }).solana,
    ).toEqual({ rpcUrl: 'http://ledger:8899', secretKey: DEFAULT_SOLANA_FEE_PAYER_SECRET_KEY });
    expect(() =>
      readFacilitatorConfig({ FACILITATOR_SOLANA_RPC_URL: 'ledger', FACILITATOR_SOLANA_SECRET_KEY: '0x12' }),
    ).toThrow(
      /FACILITATOR_SOLANA_RPC_URL must be an http\(s\) URL or "none"[\s\S]*FACILITATOR_SOLANA_SECRET_KEY must be a 64-byte secret key/,
    );
  });

  it('gives each network the shared RPC unless it names its own', () => {
    const config = readFacilitatorConfig({
      FACILITATOR_RPC_URL: 'http://chain:8545/',
      FACILITATOR_NETWORKS: 'eip155:8453, eip155:143=http://monad:8546',
      FACILITATOR_AUTH_TOKEN: 'tok',
    });
    expect(config.networks).toEqual([
      { network: 'eip155:8453', rpcUrl: 'http://chain:8545' },
      { network: 'eip155:143', rpcUrl: 'http://monad:8546' },
    ]);
    expect(config.authToken).toBe('tok');
  });

  it('checks CDP JWTs when given a CDP API key, and refuses half a key or a malformed secret', () => {
    const secret = Buffer.alloc(64, 7).toString('base64');
    expect(
      readFacilitatorConfig({ FACILITATOR_CDP_API_KEY_ID: 'kid', FACILITATOR_CDP_API_KEY_SECRET: secret }).cdpKeys,
    ).toEqual([{ id: 'kid', secret }]);
    expect(() => readFacilitatorConfig({ FACILITATOR_CDP_API_KEY_ID: 'kid' })).toThrow(/go together/);
    expect(() =>
      readFacilitatorConfig({ FACILITATOR_CDP_API_KEY_ID: 'kid', FACILITATOR_CDP_API_KEY_SECRET: 'short' }),
    ).toThrow(/base64 Ed25519 key or a PEM EC key/);
  });

  it('reports every bad setting at once', () => {
    const read = () =>
      readFacilitatorConfig({
        FACILITATOR_NETWORKS: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp,eip155:1=ftp://x,eip155:8453,eip155:8453',
        FACILITATOR_PRIVATE_KEY: '0x1234',
        FACILITATOR_PORT: 'eighty',
      });
    expect(read).toThrow(ConfigError);
    try {
      read();
    } catch (error) {
      expect((error as ConfigError).problems).toEqual([
        'FACILITATOR_NETWORKS has "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp", expected eip155:<chain id>',
        'FACILITATOR_NETWORKS gives eip155:1 the RPC "ftp://x", expected an http(s) URL',
        'FACILITATOR_NETWORKS lists eip155:8453 twice',
        'FACILITATOR_PRIVATE_KEY must be 0x followed by 64 hex digits',
        'FACILITATOR_PORT must be an integer from 0 to 65535, got "eighty"',
      ]);
    }
  });
});
