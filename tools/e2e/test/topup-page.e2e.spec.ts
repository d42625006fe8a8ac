/*
 * The /topup page in a real Chromium, as a person uses it: the whole system runs with the local chain
 * and the dev facilitator, and the page talks to a browser wallet injected as `window.ethereum`
 * (EIP-1193) whose requests are answered here in node by the local chain's payer account. Every
 * payment is checked through the public balance route and on chain. Screenshots land in
 * tmp/artifacts/topup/.
 */
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { existsSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { System } from './support/system.js';

const CHROMIUM = '/usr/bin/chromium';
const ARTIFACTS = fileURLToPath(new URL('../../../tmp/artifacts/topup/', import.meta.url));
const ETHEREUM_MAINNET = 1;

/** What the test wallet does; changed by a test before it clicks. */
interface WalletBehaviour {
  account: PrivateKeyAccount;
  chainId: number;
  /** Answer eth_signTypedData_v4 with EIP-1193's 4001 "user rejected". */
  rejectSignature?: boolean;
}

interface WalletLog {
  methods: string[];
  typedData: { domain: Record<string, unknown>; message: Record<string, unknown>; primaryType: string }[];
}

// The provider a wallet extension would inject; each request is relayed to node through a binding.
const INJECTED_PROVIDER = `(() => {
  const listeners = new Map();
  const emit = (event, value) => (listeners.get(event) || []).forEach((listener) => listener(value));
  window.ethereum = {
    isTestWallet: true,
    async request({ method, params }) {
      const answer = await window.__testWallet(method, params || []);
      if (answer.error) {
        const error = new Error(answer.error.message);
        error.code = answer.error.code;
        throw error;
      }
      if (method === 'wallet_switchEthereumChain') emit('chainChanged', params[0].chainId);
      return answer.result;
    },
    on(event, listener) { listeners.set(event, [...(listeners.get(event) || []), listener]); },
    removeListener(event, listener) { listeners.set(event, (listeners.get(event) || []).filter((l) => l !== listener)); },
  };
})();`;

describe('the /topup page in Chromium', () => {
  let system: System;
  let browser: Browser;
  let payTo: `0x${string}`;

  beforeAll(async () => {
    if (!existsSync(CHROMIUM))
      throw new Error(`${CHROMIUM} is missing: npm test installs it (apt-get install -y chromium)`);
    mkdirSync(ARTIFACTS, { recursive: true });
    system = await System.start({ x402: true });
    payTo = system.chain!.accounts.payTo.address;
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

  /** A fresh browser profile on /topup, with the test wallet injected unless `wallet` is omitted. */
  async function openPage(
    wallet?: WalletBehaviour,
    viewport = { width: 1100, height: 900 },
  ): Promise<{ page: Page; context: BrowserContext; log: WalletLog }> {
    const context = await browser.newContext({ viewport });
    const log: WalletLog = { methods: [], typedData: [] };
    if (wallet) {
      await context.exposeFunction('__testWallet', (method: string, params: unknown[]) =>
        answerWallet(wallet, log, method, params),
      );
      await context.addInitScript({ content: INJECTED_PROVIDER });
    }
    const page = await context.newPage();
    // Script errors and content-policy violations; the browser's notes on 402/401 answers are expected.
    page.on('pageerror', (error) => pageErrors.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error' && !message.text().startsWith('Failed to load resource'))
        pageErrors.push(message.text());
    });
    await page.goto(`${system.baseUrl}/topup`);
    await page.getByLabel('Network').and(page.locator(':enabled')).waitFor();
    return { page, context, log };
  }

  async function answerWallet(wallet: WalletBehaviour, log: WalletLog, method: string, params: unknown[]) {
    log.methods.push(method);
    switch (method) {
      case 'eth_requestAccounts':
      case 'eth_accounts':
        return { result: [wallet.account.address.toLowerCase()] }; // wallets commonly answer in lower case
      case 'eth_chainId':
        return { result: `0x${wallet.chainId.toString(16)}` };
      case 'wallet_switchEthereumChain':
        wallet.chainId = Number.parseInt((params[0] as { chainId: string }).chainId, 16);
        return { result: null };
      case 'eth_signTypedData_v4': {
        if (wallet.rejectSignature) return { error: { code: 4001, message: 'User rejected the request.' } };
        const [address, json] = params as [string, string];
        if (address.toLowerCase() !== wallet.account.address.toLowerCase())
          return { error: { code: 4100, message: 'unknown account' } };
        const typedData = JSON.parse(json);
        log.typedData.push(typedData);
        return { result: await wallet.account.signTypedData(typedData) };
      }
      default:
        return { error: { code: 4200, message: `unsupported method ${method}` } };
    }
  }

  const payer = () => privateKeyToAccount(system.chain!.accounts.payer.privateKey);
  const alert = (page: Page) => page.getByRole('alert');
  const shot = (page: Page, name: string) => page.screenshot({ path: `${ARTIFACTS}${name}.png`, fullPage: true });

  it('is served by the gateway as HTML with its own script and style, under a strict content policy', async () => {
    const page = await fetch(`${system.baseUrl}/topup`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(page.headers.get('content-security-policy')).toContain("connect-src 'self'");
    const html = await page.text();
    expect(html).toContain('<script type="module" src="/topup/topup.js"></script>');
    // Nothing fetched from elsewhere, so the page works offline; the Solana RPC it names is read only when paying on Solana.
    expect(html.replace(/<meta name="solana-rpc" content="[^"]*">/, '')).not.toMatch(/https?:\/\//);

    for (const [file, type] of [
      ['topup.js', 'text/javascript'],
      ['payment.js', 'text/javascript'],
      ['wallet.js', 'text/javascript'],
      ['topup.css', 'text/css'],
    ]) {
      const asset = await fetch(`${system.baseUrl}/topup/${file}`);
      expect([file, asset.status, asset.headers.get('content-type')]).toEqual([file, 200, `${type}; charset=utf-8`]);
    }
    const missing = await fetch(`${system.baseUrl}/topup/payment.d.ts`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ status: 404, message: 'not found', data: null });
  });

  it('a person buys a new key for USD 1 (switching the wallet to Base first), copies it, then recharges it by pasting it', async () => {
    const before = await system.chain!.balanceOf(payTo);
    const wallet: WalletBehaviour = { account: payer(), chainId: ETHEREUM_MAINNET };
    const { page, context, log } = await openPage(wallet);
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: system.baseUrl });

    // The networks come from the gateway's own 402 challenge: the local chains stand in for Base and Monad, the local ledger for Solana.
    await expect(page.getByLabel('Network').locator('option').allTextContents()).resolves.toEqual([
      'Base (USDC)',
      'Monad (USDC)',
      'Solana (USDC)',
    ]);
    await page.getByLabel('Amount in USD').fill('1');
    await page.getByLabel('Network').selectOption({ label: 'Base (USDC)' });
    await page.getByRole('button', { name: 'Pay with wallet' }).click();

    // The wallet is on Ethereum: the page says so and offers to switch, with the focus on that offer.
    await expect(alert(page).textContent()).resolves.toContain(
      'Your wallet is on Ethereum, but this payment is in USDC on Base',
    );
    const switchButton = page.getByRole('button', { name: 'Switch wallet to Base' });
    await expect(switchButton.evaluate((button) => button === button.ownerDocument.activeElement)).resolves.toBe(true);
    await shot(page, '01-wrong-network');
    expect(log.methods).not.toContain('eth_signTypedData_v4');
    await switchButton.click();

    const keyField = page.getByRole('textbox', { name: 'Your new API key' });
    await page.getByRole('heading', { name: 'Your new API key is ready' }).waitFor();
    const key = await keyField.inputValue();
    expect(key).toMatch(/^ak_[1-9A-HJ-NP-Za-km-z]{40,}$/);
    await expect(page.getByText('Save this key now.').isVisible()).resolves.toBe(true);
    await expect(page.locator('#result-balance').textContent()).resolves.toBe('USD 1.000000');
    await expect(page.getByRole('status').textContent()).resolves.toBe('Paid on Base. Balance: USD 1.000000.');
    expect(log.methods).toContain('wallet_switchEthereumChain');
    // Signed as the exact-EVM scheme wants it: USDC's domain on Base, the full amount to payTo.
    expect(log.typedData).toEqual([
      expect.objectContaining({
        primaryType: 'TransferWithAuthorization',
        domain: {
          name: 'USD Coin',
          version: '2',
          chainId: 8453,
          verifyingContract: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
        },
        message: expect.objectContaining({ to: payTo, value: '1000000', validAfter: '0' }),
      }),
    ]);

    await page.getByRole('button', { name: 'Copy key' }).click();
    await page.getByText('Key copied to the clipboard').waitFor();
    await expect(page.evaluate('navigator.clipboard.readText()')).resolves.toBe(key);
    await shot(page, '02-new-key');

    expect(await system.balance(key)).toBe('1.000000');
    expect((await system.chain!.balanceOf(payTo)) - before).toBe(1_000_000n);
    await context.close();

    // Later, in a new session: paste the key to add credit to it.
    const second = await openPage({ account: payer(), chainId: 8453 });
    await second.page.getByLabel('Add credit to a key I have').check();
    await second.page.getByLabel('Your API key').fill(key);
    await second.page.getByLabel('Amount in USD').fill('1');
    await second.page.getByRole('button', { name: 'Pay with wallet' }).click();
    await second.page.getByRole('heading', { name: 'Credit added to your key' }).waitFor();
    await expect(second.page.locator('#result-balance').textContent()).resolves.toBe('USD 2.000000');
    await expect(second.page.locator('#result-credited').textContent()).resolves.toBe('USD 1.000000');
    await expect(second.page.getByRole('textbox', { name: 'Your new API key' }).isVisible()).resolves.toBe(false);
    await shot(second.page, '03-recharged');
    await second.context.close();

    expect(await system.balance(key)).toBe('2.000000');
    expect((await system.chain!.balanceOf(payTo)) - before).toBe(2_000_000n);
  });

  it('without a browser wallet: says so in words, and nothing is paid', async () => {
    const { page, context } = await openPage(undefined);
    await page.getByRole('button', { name: 'Pay with wallet' }).click();
    await expect(alert(page).textContent()).resolves.toMatch(
      /No wallet found.*No browser wallet found\. Install or enable a wallet extension/s,
    );
    await shot(page, '04-no-wallet');
    await context.close();
  });

  it('a signature the person declines in the wallet (4001): says it was declined, nothing is paid or credited', async () => {
    const before = await system.chain!.balanceOf(payTo);
    const { page, context, log } = await openPage({ account: payer(), chainId: 8453, rejectSignature: true });
    await page.getByLabel('Amount in USD').fill('1');
    await page.getByRole('button', { name: 'Pay with wallet' }).click();
    await expect(alert(page).textContent()).resolves.toMatch(
      /Payment cancelled.*You declined to sign the payment in your wallet\. Nothing was paid\./s,
    );
    expect(log.methods).toContain('eth_signTypedData_v4');
    await expect(page.locator('#result').isVisible()).resolves.toBe(false);
    await shot(page, '05-rejected');
    await context.close();
    expect(await system.chain!.balanceOf(payTo)).toBe(before);
  });

  // Refused before it is held: a payer that never paid is verified (funds included) by the facilitator first.
  it('a payment the service refuses (a wallet without USDC): shows the reason from the 402 envelope', async () => {
    const before = await system.chain!.balanceOf(payTo);
    const { page, context } = await openPage({ account: privateKeyToAccount(generatePrivateKey()), chainId: 8453 });
    await page.getByLabel('Amount in USD').fill('1');
    await page.getByRole('button', { name: 'Pay with wallet' }).click();
    await expect(alert(page).textContent()).resolves.toMatch(
      /Payment refused.*The payment was not accepted: payment rejected: \S*insufficient_balance\. Your wallet does not hold enough USDC on this network\. Nothing was credited/s,
    );
    await shot(page, '06-refused');
    await context.close();
    expect(await system.chain!.balanceOf(payTo)).toBe(before);
  });

  it('an amount outside the rules or an unknown key is refused on the page, before the wallet is asked to sign', async () => {
    const { page, context, log } = await openPage({ account: payer(), chainId: 8453 });
    const amount = page.getByLabel('Amount in USD');
    await amount.fill('0.5');
    await page.getByRole('button', { name: 'Pay with wallet' }).click();
    await expect(page.locator('#amount-error').textContent()).resolves.toBe('The smallest top-up is USD 1.');
    await expect(amount.getAttribute('aria-invalid')).resolves.toBe('true');
    await expect(amount.evaluate((input) => input === input.ownerDocument.activeElement)).resolves.toBe(true);
    await shot(page, '07-amount-error');

    await amount.fill('1');
    await page.getByLabel('Add credit to a key I have').check();
    await page.getByLabel('Your API key').fill(`ak_${'1'.repeat(44)}`);
    await page.getByRole('button', { name: 'Pay with wallet' }).click();
    await expect(alert(page).textContent()).resolves.toMatch(/Key not recognised.*unknown or revoked/s);
    expect(log.methods).toEqual([]);
    await context.close();
  });

  it('is usable by keyboard, with a visible focus ring, and fits a phone screen', async () => {
    const { page, context } = await openPage({ account: payer(), chainId: 8453 }, { width: 360, height: 740 });
    const order: string[] = [];
    const outlines: string[] = [];
    for (let i = 0; i < 6; i++) {
      await page.keyboard.press('Tab');
      order.push(await page.evaluate<string>('document.activeElement.id || document.activeElement.textContent.trim()'));
      outlines.push(await page.evaluate<string>('getComputedStyle(document.activeElement).outlineStyle'));
    }
    expect(order).toEqual(['Skip to the form', 'key-mode-new', 'amount', 'network', 'connect-button', 'pay-button']);
    expect(outlines.every((style) => style !== 'none')).toBe(true);
    await expect(
      page.evaluate<boolean>('document.documentElement.scrollWidth <= document.documentElement.clientWidth'),
    ).resolves.toBe(true);
    await shot(page, '08-phone');

    // Paying by keyboard alone: focus the amount, type, and press Enter in the form.
    await page.getByLabel('Amount in USD').focus();
    await page.keyboard.press('ControlOrMeta+a');
    await page.keyboard.type('1');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Your new API key is ready' }).waitFor();
    await expect(page.evaluate<string>('document.activeElement.id')).resolves.toBe('result-title');
    await shot(page, '09-phone-new-key');
    await context.close();
  });
});
