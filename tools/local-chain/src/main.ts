import { readLocalChainConfig } from './config.js';
import { startLocalChains } from './local-chains.js';

const config = readLocalChainConfig();
const started = await startLocalChains(config);
// anvil's process handles do not hold Node open (so test runners can always exit): the CLI does.
const keepAlive = setInterval(() => undefined, 2 ** 31 - 1);
const lines: string[] = [];
for (const chain of started.chains) {
  const { payer, payTo, facilitator } = chain.accounts;
  const usdc = (await chain.balanceOf(payer.address)) / 1_000_000n;
  lines.push(
    `local chain ${chain.network} on ${config.host}:${new URL(chain.rpcUrl).port} (${chain.rpcUrl})`,
    `  test USDC "${chain.usdcDomain.name}" v${chain.usdcDomain.version} at ${chain.usdcAddress}`,
    `  demo payer ${payer.address} holds ${usdc} USDC; facilitator signer ${facilitator.address}, payTo ${payTo.address}`,
  );
}
const { payer } = started.chains[0].accounts;
lines.push(`demo payer key ${payer.privateKey} on every chain (anvil's published dev key: local use only)`, '');
process.stdout.write(lines.join('\n'));

let stopping = false;
for (const chain of started.chains) {
  void chain.exited.then((exit) => {
    if (stopping) return;
    process.stderr.write(`anvil of ${chain.network} exited unexpectedly (code ${exit.code}, signal ${exit.signal})\n`);
    void started.stop().then(() => process.exit(1));
  });
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    stopping = true;
    clearInterval(keepAlive);
    void started.stop().then(() => process.exit(0));
  });
}
