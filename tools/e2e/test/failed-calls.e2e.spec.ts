/*
 * A failed call is never charged: with the store failing or answering nonsense, or the catalog stopped,
 * every credit-paid call (HTTP and MCP) is a 502 ending "nothing was charged", the balance and the
 * ledger stay as they were, and the books reconcile exactly with no hold left open. Every part real:
 * the emulator, the catalog, two payments replicas, Postgres, Redis and NATS.
 */
import { type AdminReconcileReply, Subject } from '@appcat/contracts';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { System } from './support/system.js';

describe('a failed call is never charged (credits)', () => {
  let system: System;

  beforeAll(async () => {
    system = await System.start({ paymentsReplicas: 2 });
  }, 120_000);

  afterAll(async () => {
    await system?.stop();
  });

  const reconcile = () =>
    system.admin.request<AdminReconcileReply>(Subject.AdminReconcile, { waitMs: 20_000 }, { service: 'payments' });

  /** Calls `paths` with a fresh key while the failure lasts; each must be an uncharged 502. */
  async function expectUncharged(paths: string[], message: RegExp): Promise<void> {
    const created = await system.createKey('0.3');
    for (const path of paths) {
      const answer = await system.get(path, created.key);
      expect(answer.status).toBe(502);
      expect(answer.body.data).toBeNull();
      expect(answer.body.message).toMatch(message);
      expect(answer.body.message).toMatch(/; nothing was charged$/);
      expect(answer.headers['x-credits-remaining']).toBeUndefined();
    }
    expect(await system.balanceSoon(created.key, '0.300000')).toBe('0.300000');
    expect(await reconcile()).toMatchObject({ exact: true, openHolds: 0, differences: [] });
    expect(await system.ledger(created.id)).toEqual({ toppedUp: 300_000n, spent: 0n, debits: 0 });
  }

  it('a store answering nonsense: twelve calls, twelve uncharged 502s', async () => {
    system.emulator.setRequestHook(() => ({ response: { status: 200, body: 'this is not json' } }));
    try {
      await expectUncharged(
        Array.from({ length: 12 }, (_, i) => `/api/apps?term=malformed-${i}`),
        /upstream store answered a body that is not JSON/,
      );
    } finally {
      system.emulator.setRequestHook(undefined);
    }
  });

  it('a failing store: uncharged 502s naming it, and the tool calls of MCP the same', async () => {
    system.emulator.setRequestHook(() => ({ response: { status: 503, body: 'maintenance' } }));
    try {
      await expectUncharged(['/api/apps?term=failing-store', '/api/developers/284882299'], /upstream store/);
      const created = await system.createKey('0.3');
      const mcp = new Client({ name: 'e2e-agent', version: '1.0.0' });
      await mcp.connect(
        new StreamableHTTPClientTransport(new URL(`${system.baseUrl}/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${created.key}` } },
        }),
      );
      try {
        const result = (await mcp.callTool({
          name: 'apps_search',
          arguments: { term: 'failing-store-mcp' },
        })) as CallToolResult;
        expect(result.isError).toBe(true);
        expect((result.content[0] as { text: string }).text).toMatch(/; nothing was charged$/);
        expect(result._meta?.['appcat/credits-remaining']).toBeUndefined();
      } finally {
        await mcp.close();
      }
      expect(await system.balanceSoon(created.key, '0.300000')).toBe('0.300000');
    } finally {
      system.emulator.setRequestHook(undefined);
    }
  });

  it('the catalog stopped: every call an uncharged 502, the balance and the ledger unchanged', async () => {
    await system.catalog.close();
    await expectUncharged(
      Array.from({ length: 8 }, (_, i) => `/api/apps/28488221${i}`),
      /^catalog service (unavailable|did not answer in time)/,
    );
  });
});
