#!/usr/bin/env node
// `npm run demo:x402 [-- --network <base|monad|solana|polygon|arbitrum>] [--store google-play]`: an agent
// pays for catalog calls per call with the official x402 client, against the gateway that `npm start`
// runs (the App Store's, or Google Play's with --store), on that network's local chain or the local
// Solana ledger (default Base). Prints each receipt, then buys a USD 1 key where top-ups are offered.
import { parseArgs } from 'node:util';
import { X402_NETWORKS } from '@appcat/contracts';
import { createKeyPairSignerFromBytes, getBase58Encoder } from '@solana/kit';
import { decodePaymentResponseHeader } from '@x402/core/http';
import { x402Client } from '@x402/core/client';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { wrapFetchWithPayment } from '@x402/fetch';
import { ExactSvmScheme } from '@x402/svm/exact/client';
import { privateKeyToAccount } from 'viem/accounts';

const { values } = parseArgs({
  options: { network: { type: 'string', default: 'base' }, store: { type: 'string', default: 'apple' } },
});
const play = values.store === 'google-play';
const network = X402_NETWORKS.find((n) => n.name === values.network);
if (!network) {
  process.stderr.write(`--network must be one of ${X402_NETWORKS.map((n) => n.name).join(', ')}, got ${JSON.stringify(values.network)}\n`);
  process.exit(2);
}

const port = Number(process.env.PORT ?? 3000);
const gateway = process.env.GATEWAY_URL ?? `http://localhost:${play ? Number(process.env.PLAY_PORT ?? port + 1) : port}`;

/** The official client, able to pay on the chosen network only, so it takes that entry of each challenge. */
async function clientFor(facts) {
  const client = new x402Client();
  if (facts.kind === 'evm') {
    // anvil's first default account: the demo payer funded on every local EVM chain (local use only).
    const payerKey = process.env.DEMO_PAYER_KEY ?? '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
    return registerExactEvmScheme(client, { signer: privateKeyToAccount(payerKey), networks: [facts.network] });
  }
  // The local Solana ledger's published demo payer (local use only); the client reads the mint from the ledger.
  const secretKey = process.env.DEMO_SOLANA_PAYER_KEY ?? 'J9QuVzw66G1i7cpADabQamgf8XUDs9WJYXje7xyt2dpTvHQG5cBU6y19BaWh59wAGPcc5JpXuiGiSGTLZRYp13R';
  const rpcUrl = process.env.SOLANA_RPC_URL ?? `http://127.0.0.1:${process.env.SOLANA_LEDGER_PORT ?? 8899}`;
  const signer = await createKeyPairSignerFromBytes(new Uint8Array(getBase58Encoder().encode(secretKey)));
  return client.register(facts.network, new ExactSvmScheme(signer, { rpcUrl }));
}
const paidFetch = wrapFetchWithPayment(fetch, await clientFor(network));

async function pay(path, init) {
  const response = await paidFetch(gateway + path, init);
  const body = await response.json();
  const header = response.headers.get('payment-response');
  const receipt = header ? decodePaymentResponseHeader(header) : undefined;
  process.stdout.write(`${init?.method ?? 'GET'} ${path} → ${response.status} ${body.message}\n`);
  if (receipt) process.stdout.write(`  paid on ${receipt.network} by ${receipt.payer}: tx ${receipt.transaction}\n`);
  return body;
}

process.stdout.write(`paying on ${network.title} (${network.network}) at ${gateway}\n`);
if (play) {
  const developer = await pay('/api/developers/5700313618786177705?country=us');
  process.stdout.write(`  ${developer.data?.resultCount ?? 0} apps by ${developer.data?.results?.[0]?.developer ?? '-'}\n`);
  process.exit(0);
}
// Polygon and Arbitrum are offered on the developers route only (spec §5).
if (network.set === 'standard') {
  const search = await pay('/api/apps?term=chess');
  process.stdout.write(`  ${search.data?.resultCount ?? 0} apps, first: ${search.data?.results?.[0]?.trackName ?? '-'}\n`);
  await pay('/api/apps/284882215/reviews?sort=helpful');
}
await pay('/api/developers/284882218');
if (network.set === 'standard') {
  const topUp = await pay('/api/credits/topup?amount=1', { method: 'POST' });
  if (topUp.data?.apiKey) process.stdout.write(`  new key ${topUp.data.apiKey} holding USD ${topUp.data.balance} (shown once)\n`);
}
