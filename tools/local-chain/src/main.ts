import { readLocalChainConfig } from './config.js';
import { startLocalChain } from './local-chain.js';

const config = readLocalChainConfig();
const chain = await startLocalChain(config);
// anvil's process handles do not hold Node open (so test runners can always exit): the CLI does.
const keepAlive = setInterval(() => undefined, 2 ** 31 - 1);
const { payer, payTo, facilitator } = chain.accounts;
const usdc = (await chain.balanceOf(payer.address)) / 1_000_000n;
process.stdout.write(
  [
    `local chain ${chain.network} on ${config.host}:${new URL(chain.rpcUrl).port} (${chain.rpcUrl})`,
    `  test USDC "${chain.usdcDomain.name}" v${chain.usdcDomain.version} at ${chain.usdcAddress}`,
    `  demo payer ${payer.address} holds ${usdc} USDC`,
    `  demo payer key ${payer.privateKey} (anvil's published dev key: local use only)`,
    `  facilitator signer ${facilitator.address}, payTo ${payTo.address}`,
    '',
  ].join('\n'),
);

let stopping = false;
void chain.exited.then((exit) => {
  if (stopping) return;
  process.stderr.write(`anvil exited unexpectedly (code ${exit.code}, signal ${exit.signal})\n`);
  process.exit(1);
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    stopping = true;
    clearInterval(keepAlive);
    void chain.stop().then(() => process.exit(0));
  });
}
