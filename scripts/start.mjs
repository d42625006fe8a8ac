#!/usr/bin/env node
// `npm start`: the whole system on local defaults. Installs dependencies if missing, finds or starts
// Postgres, Redis and NATS, applies migrations, builds, starts the store emulator, payments, catalog
// and gateway for the App Store and a catalog and gateway for Google Play (its own address, the same
// payments), and prints both addresses, ready curl lines and a demo API key holding USD 5.
// Ctrl-C stops everything it started.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defaults, ensureDependencies, ensureInfrastructure, hostPort, log, waitListening } from './lib/infra.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
/** anvil's first default account: published everywhere, worthless outside a local chain. */
const DEMO_PAYER_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
/** The local Solana ledger's demo payer (tools/solana-ledger): published, worthless outside the ledger. */
const SOLANA_DEMO_PAYER_KEY = 'J9QuVzw66G1i7cpADabQamgf8XUDs9WJYXje7xyt2dpTvHQG5cBU6y19BaWh59wAGPcc5JpXuiGiSGTLZRYp13R';
process.chdir(root);

const env = {
  ...process.env,
  DATABASE_URL: process.env.DATABASE_URL ?? defaults.DATABASE_URL,
  REDIS_URL: process.env.REDIS_URL ?? defaults.REDIS_URL,
  NATS_URL: process.env.NATS_URL ?? defaults.NATS_URL,
  NX_TUI: 'false',
  NX_DAEMON: 'false',
};
const port = Number(env.PORT ?? 3000);
// Google Play's gateway: its own port and address, and its catalog's and its own ops ports beside the App Store's.
const playPort = Number(env.PLAY_PORT ?? port + 1);
const playEnv = {
  CATALOG_STORE: 'google-play',
  GATEWAY_STORE: 'google-play',
  PORT: String(playPort),
  PUBLIC_BASE_URL: env.PLAY_PUBLIC_BASE_URL ?? `http://localhost:${playPort}`,
};
const useEmulator = (env.START_STORE_EMULATOR ?? 'true') !== 'false';
// The local chains, the Solana ledger and the dev facilitator stand in for the real networks and facilitator unless one is configured.
const useLocalPayments = env.X402_FACILITATOR_URL === undefined && (env.START_LOCAL_PAYMENTS ?? 'true') !== 'false';

ensureDependencies(root);
const startedInfra = await ensureInfrastructure(env);

log('building');
execFileSync('npx', ['nx', 'run-many', '-t', 'build', '--outputStyle=static'], { stdio: 'inherit', env });
// The local EVM chains (one anvil each, the same demo payer on all), as the built local-chain package lists them.
const { LOCAL_EVM_NETWORKS, localChainPortSetting } = await import('@appcat/local-chain');
const chainPort = (chain) => Number(env[localChainPortSetting(chain.name)] ?? chain.port);
const { X402_NETWORKS } = await import('@appcat/contracts');
// The local Solana ledger (tools/solana-ledger) and the /topup page's view of it.
const solanaPort = Number(env.SOLANA_LEDGER_PORT ?? 8899);
env.TOPUP_SOLANA_RPC_URL ??= `http://127.0.0.1:${solanaPort}`;
log('applying migrations');
execFileSync('node', ['apps/payments/dist/migrate/cli.js'], { stdio: 'inherit', env });

// The node options and environment the services are deployed with (the image's, Compose's and Kubernetes'
// service commands carry the same options; the image sets the same environment).
const deployed = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).config ?? {};
const serviceNodeArgs = (deployed.serviceNodeOptions ?? '').split(/\s+/).filter(Boolean);
const serviceEnv = deployed.serviceEnvironment ?? {};
const children = [];
function startService(name, script, extraEnv = {}) {
  const child = spawn('node', ['--enable-source-maps', ...serviceNodeArgs, script], { env: { ...serviceEnv, ...env, ...extraEnv }, stdio: ['ignore', 'pipe', 'pipe'] });
  const prefix = `[${name}] `;
  for (const stream of [child.stdout, child.stderr]) {
    let pending = '';
    stream.on('data', (chunk) => {
      const lines = (pending + chunk.toString()).split('\n');
      pending = lines.pop();
      for (const line of lines) process.stdout.write(prefix + line + '\n');
    });
  }
  child.on('exit', (code, signal) => {
    if (!stopping) {
      log(`${name} exited (${signal ?? code}); stopping everything`);
      void stop(1);
    }
  });
  children.push({ name, child });
  return child;
}

let stopping = false;
async function stop(code = 0) {
  if (stopping) return;
  stopping = true;
  log('stopping');
  for (const { child } of children.reverse()) if (child.exitCode === null) child.kill('SIGTERM');
  await Promise.all(children.map(({ child }) => (child.exitCode === null ? new Promise((r) => child.once('exit', r)) : null)));
  stopInfra();
  process.exit(code);
}
process.on('SIGINT', () => void stop(0));
process.on('SIGTERM', () => void stop(0));

function stopInfra() {
  for (const name of startedInfra) {
    log(`stopping local ${name}`);
    if (name === 'redis') spawnSync('redis-cli', ['-p', String(hostPort(env.REDIS_URL, 6379).port), 'shutdown', 'nosave'], { stdio: 'ignore' });
    if (name === 'nats') spawnSync('pkill', ['-f', `nats-server -a 127.0.0.1 -p ${hostPort(env.NATS_URL, 4222).port}`], { stdio: 'ignore' });
    if (name === 'postgres') spawnSync('sh', ['-c', 'pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql | sort | tail -1) main stop'], { stdio: 'ignore' });
  }
}

try {
  if (useEmulator) {
    // The emulator does not throttle: lift the catalog's Apple-sized rate limits for it.
    const { CATALOG_RATE_LIMITS_LIFTED } = await import('../tools/store-emulator/dist/index.js');
    for (const [name, value] of Object.entries(CATALOG_RATE_LIMITS_LIFTED)) env[name] ??= value;
    startService('store-emulator', 'tools/store-emulator/dist/main.js');
    await waitListening({ host: '127.0.0.1', port: Number(env.STORE_EMULATOR_PORT ?? 4010) }, 15_000, 'store emulator');
  }
  if (useLocalPayments) {
    startService('local-chain', 'tools/local-chain/dist/main.js');
    for (const chain of LOCAL_EVM_NETWORKS) await waitListening({ host: '127.0.0.1', port: chainPort(chain) }, 30_000, `local ${chain.title} chain`);
    startService('solana-ledger', 'tools/solana-ledger/dist/main.js');
    await waitListening({ host: '127.0.0.1', port: solanaPort }, 30_000, 'local Solana ledger');
    // The facilitator settles on every local chain, each at its port, and on the Solana ledger.
    env.FACILITATOR_NETWORKS ??= LOCAL_EVM_NETWORKS.map((chain) => `eip155:${chain.chainId}=http://127.0.0.1:${chainPort(chain)}`).join(',');
    env.FACILITATOR_SOLANA_RPC_URL ??= `http://127.0.0.1:${solanaPort}`;
    startService('facilitator', 'tools/facilitator/dist/main.js');
    await waitListening({ host: '127.0.0.1', port: Number(env.FACILITATOR_PORT ?? 4020) }, 30_000, 'dev facilitator');
  }
  startService('payments', 'apps/payments/dist/main.js');
  startService('catalog', 'apps/catalog/dist/main.js');
  startService('gateway', 'apps/gateway/dist/main.js');
  startService('play-catalog', 'apps/catalog/dist/main.js', { ...playEnv, OPS_PORT: env.PLAY_CATALOG_OPS_PORT ?? '9112' });
  startService('play-gateway', 'apps/gateway/dist/main.js', { ...playEnv, OPS_PORT: env.PLAY_GATEWAY_OPS_PORT ?? '9110' });
  await waitListening({ host: '127.0.0.1', port }, 30_000, 'gateway');
  await waitListening({ host: '127.0.0.1', port: playPort }, 30_000, 'Google Play gateway');

  const created = JSON.parse(
    execFileSync('node', ['apps/admin/dist/main.js', 'keys', 'create', '--credit', '5', '--note', 'npm start demo key', '--json'], {
      env,
      encoding: 'utf8',
    }),
  );
  const base = env.PUBLIC_BASE_URL ?? `http://localhost:${port}`;
  process.stdout.write(
    [
      '',
      `  App Store:   ${base}`,
      `  Google Play: ${playEnv.PUBLIC_BASE_URL}   (same prices, payments and keys)`,
      `  Demo key:  ${created.key}   (USD ${created.balance}; local use only, shown once; good at both addresses)`,
      `  Try:       curl -H "Authorization: Bearer ${created.key}" "${base}/api/apps?term=chess"`,
      `             curl -H "Authorization: Bearer ${created.key}" "${playEnv.PUBLIC_BASE_URL}/api/developers/5700313618786177705?country=us"`,
      `  Balance:   curl -H "Authorization: Bearer ${created.key}" "${base}/api/credits/balance"`,
      ...(useLocalPayments
        ? [
            `  x402:      npm run demo:x402 -- --network <${X402_NETWORKS.map((n) => n.name).join('|')}>   (an agent pays per call with @x402/fetch)`,
            ...LOCAL_EVM_NETWORKS.map((c) => `  ${(c.title + ':').padEnd(10)} RPC http://127.0.0.1:${chainPort(c)}   (chain id ${c.chainId})`),
            `  EVM payer: ${DEMO_PAYER_KEY}   (private key of anvil's account 0, the same on every EVM chain, 1,000 test USDC each; local use only)`,
            `  Solana:    RPC http://127.0.0.1:${solanaPort}   (local ledger, mainnet's id and USDC mint)`,
            `  Solana payer secret key (base58): ${SOLANA_DEMO_PAYER_KEY}   (1,000 test USDC, no SOL; local use only)`,
          ]
        : []),
      '',
      '  Ctrl-C stops everything npm start started.',
      '',
    ].join('\n') + '\n',
  );
} catch (error) {
  log(`start failed: ${error instanceof Error ? error.message : String(error)}`);
  await stop(1);
}
