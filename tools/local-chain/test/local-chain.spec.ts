import { createServer, type Server } from 'node:net';
import { existsSync } from 'node:fs';
import { freePort } from '@appcat/testing';
import { resolveAnvilBinary, startLocalChain } from '../src/index.js';

describe('startLocalChain', () => {
  it('finds a runnable anvil without PATH or postinstall', () => {
    const binary = resolveAnvilBinary({});
    expect(binary).toMatch(/@foundry-rs\/anvil-[a-z0-9]+-[a-z0-9]+\/bin\/anvil(\.exe)?$/);
    expect(existsSync(binary)).toBe(true);
  });

  it('refuses an ANVIL_BIN that is not an executable', () => {
    expect(() => resolveAnvilBinary({ ANVIL_BIN: '/nonexistent/anvil' })).toThrow('ANVIL_BIN=/nonexistent/anvil');
  });

  it('refuses a chain id it has no USDC address for, unless told one', async () => {
    await expect(startLocalChain({ port: 0, chainId: 31337 })).rejects.toThrow('no USDC address known for chain 31337');
  });

  it('reports anvil failing to start instead of hanging', async () => {
    const port = await freePort();
    // Hangs up on whoever connects (the readiness probe may reach it before anvil gives up).
    const squatter: Server = createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => squatter.listen(port, '127.0.0.1', resolve));
    try {
      await expect(startLocalChain({ port })).rejects.toThrow(/anvil exited/);
    } finally {
      await new Promise((resolve) => squatter.close(resolve));
    }
  });

  it('puts the token wherever it is told on other chains', async () => {
    const usdc = { address: '0x00000000000000000000000000000000000000aa', name: 'Local Dollar', version: '7' } as const;
    const chain = await startLocalChain({ port: 0, chainId: 31337, usdc, payerFunding: 42n });
    try {
      expect(chain.usdcAddress).toBe(usdc.address);
      expect(chain.usdcDomain).toEqual({ name: 'Local Dollar', version: '7' });
      expect(await chain.balanceOf(chain.accounts.payer.address)).toBe(42n);
    } finally {
      await chain.stop();
    }
  });
});
