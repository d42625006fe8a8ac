/*
 * The /topup page in a real Chromium, paid from a Solana wallet: the whole system runs with the local
 * Solana ledger and the dev facilitator, and the page talks to a wallet registered through the Wallet
 * Standard (as Phantom, Solflare and Backpack register) whose signing is done here in node by the
 * ledger's demo payer. Every payment is checked through the public balance route and on the ledger.
 */
import { SOLANA_DEV_ACCOUNTS } from '@appcat/solana-ledger';
import {
  createKeyPairSignerFromBytes,
  decompileTransactionMessage,
  getBase58Encoder,
  getBase64EncodedWireTransaction,
  getBase64Encoder,
  getCompiledTransactionMessageDecoder,
  getTransactionDecoder,
  type KeyPairSigner,
} from '@solana/kit';
import { type Browser, chromium, type Page } from 'playwright-core';
import { existsSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { System } from './support/system.js';

const CHROMIUM = '/usr/bin/chromium';
const ARTIFACTS = fileURLToPath(new URL('../../../tmp/artifacts/topup/', import.meta.url));
const payTo = SOLANA_DEV_ACCOUNTS.payTo.address;

// A Wallet Standard wallet as an extension registers it; signing is relayed to node through a binding.
const STANDARD_WALLET = (address: string) => `(() => {
  const toBase64 = (bytes) => btoa(String.fromCharCode(...bytes));
  const fromBase64 = (text) => Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
  const account = { address: ${JSON.stringify(address)}, publicKey: new Uint8Array(32), chains: ['solana:mainnet'], features: ['solana:signTransaction'] };
  const wallet = {
    version: '1.0.0',
    name: 'Test Solana Wallet',
    icon: 'data:image/svg+xml;base64,PHN2Zy8+',
    chains: ['solana:mainnet'],
    accounts: [],
    features: {
      'standard:connect': { version: '1.0.0', connect: async () => ({ accounts: [account] }) },
      'solana:signTransaction': {
        version: '1.0.0',
        supportedTransactionVersions: [0],
        signTransaction: async (...inputs) => Promise.all(inputs.map(async (input) => {
          const answer = await window.__solanaWallet(toBase64(input.transaction), input.chain);
          if (answer.error) { const error = new Error(answer.error); error.code = 4001; throw error; }
          return { signedTransaction: fromBase64(answer.signed) };
        })),
      },
    },
  };
  const callback = ({ register }) => register(wallet);
  window.addEventListener('wallet-standard:app-ready', (event) => callback(event.detail));
  window.dispatchEvent(new CustomEvent('wallet-standard:register-wallet', { detail: callback }));
})();`;

describe('the /topup page in Chromium with a Solana wallet', () => {
  let system: System;
  let browser: Browser;
  let payer: KeyPairSigner;
  const signed: { chain: string; instructions: string[] }[] = [];

  beforeAll(async () => {
    if (!existsSync(CHROMIUM))
      throw new Error(`${CHROMIUM} is missing: npm test installs it (apt-get install -y chromium)`);
    mkdirSync(ARTIFACTS, { recursive: true });
    system = await System.start({ x402: true });
    payer = await createKeyPairSignerFromBytes(
      new Uint8Array(getBase58Encoder().encode(SOLANA_DEV_ACCOUNTS.payer.secretKey)),
    );
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
  }, 120_000);

  const pageErrors: string[] = [];
  afterEach(() => {
    expect(pageErrors.splice(0)).toEqual([]);
  });

  afterAll(async () => {
    await browser?.close();
    await system?.stop();
  });

  /** The wallet's signature, added to the transaction the page built, as a wallet does. */
  async function sign(base64: string, chain: string): Promise<{ signed?: string; error?: string }> {
    const transaction = getTransactionDecoder().decode(getBase64Encoder().encode(base64));
    const message = decompileTransactionMessage(
      getCompiledTransactionMessageDecoder().decode(transaction.messageBytes),
    );
    signed.push({
      chain,
      instructions: (message.instructions as readonly { programAddress: string }[]).map((i) => i.programAddress),
    });
    const [signatures] = await payer.signTransactions([transaction as never]);
    return {
      signed: getBase64EncodedWireTransaction({
        ...transaction,
        signatures: { ...transaction.signatures, ...signatures },
      } as never),
    };
  }

  async function openPage(): Promise<{ page: Page; close: () => Promise<void> }> {
    const context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
    await context.exposeFunction('__solanaWallet', sign);
    await context.addInitScript({ content: STANDARD_WALLET(payer.address) });
    const page = await context.newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error' && !message.text().startsWith('Failed to load resource'))
        pageErrors.push(message.text());
    });
    await page.goto(`${system.baseUrl}/topup`);
    await page.getByLabel('Network').and(page.locator(':enabled')).waitFor();
    return { page, close: () => context.close() };
  }

  it('offers what the challenge offers, Solana after Base and Monad, under a policy that reaches only this origin and the Solana RPC', async () => {
    const answer = await fetch(`${system.baseUrl}/topup`);
    expect(answer.headers.get('content-security-policy')).toContain(
      `connect-src 'self' ${new URL(system.solana!.url).origin};`,
    );
    const { page, close } = await openPage();
    await expect(page.getByLabel('Network').locator('option').allTextContents()).resolves.toEqual([
      'Base (USDC)',
      'Monad (USDC)',
      'Solana (USDC)',
    ]);
    await close();
  });

  it('a person buys a new key for USD 1 with a Solana wallet, then recharges it on Solana', async () => {
    const before = await system.solana!.usdcBalance(payTo);
    const first = await openPage();
    await first.page.getByLabel('Amount in USD').fill('1');
    await first.page.getByLabel('Network').selectOption({ label: 'Solana (USDC)' });
    await first.page.getByRole('button', { name: 'Pay with wallet' }).click();
    await first.page.getByRole('heading', { name: 'Your new API key is ready' }).waitFor();
    const key = await first.page.getByRole('textbox', { name: 'Your new API key' }).inputValue();
    expect(key).toMatch(/^ak_[1-9A-HJ-NP-Za-km-z]{40,}$/);
    await expect(first.page.getByRole('status').textContent()).resolves.toBe('Paid on Solana. Balance: USD 1.000000.');
    await first.page.screenshot({ path: `${ARTIFACTS}11-solana-new-key.png`, fullPage: true });
    await first.close();
    // The wallet signed the exact scheme's layout on mainnet: compute limit, compute price, transfer, memo.
    expect(signed).toEqual([
      {
        chain: 'solana:mainnet',
        instructions: [
          'ComputeBudget111111111111111111111111111111',
          'ComputeBudget111111111111111111111111111111',
          'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA',
          'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr',
        ],
      },
    ]);
    expect(await system.balance(key)).toBe('1.000000');
    expect((await system.solana!.usdcBalance(payTo)) - before).toBe(1_000_000n);

    const second = await openPage();
    await second.page.getByLabel('Add credit to a key I have').check();
    await second.page.getByLabel('Your API key').fill(key);
    await second.page.getByLabel('Amount in USD').fill('1');
    await second.page.getByLabel('Network').selectOption({ label: 'Solana (USDC)' });
    await second.page.getByRole('button', { name: 'Pay with wallet' }).click();
    await second.page.getByRole('heading', { name: 'Credit added to your key' }).waitFor();
    await expect(second.page.locator('#result-balance').textContent()).resolves.toBe('USD 2.000000');
    await second.close();

    expect(await system.balance(key)).toBe('2.000000');
    expect((await system.solana!.usdcBalance(payTo)) - before).toBe(2_000_000n);
  });

  it('says so when no Solana wallet is installed, and nothing is paid', async () => {
    const before = await system.solana!.usdcBalance(payTo);
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${system.baseUrl}/topup`);
    await page.getByLabel('Network').and(page.locator(':enabled')).waitFor();
    await page.getByLabel('Amount in USD').fill('1');
    await page.getByLabel('Network').selectOption({ label: 'Solana (USDC)' });
    await page.getByRole('button', { name: 'Pay with wallet' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toContain('No Solana wallet found');
    await context.close();
    expect(await system.solana!.usdcBalance(payTo)).toBe(before);
  });
});
