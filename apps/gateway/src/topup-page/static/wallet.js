// The injected browser wallet (EIP-1193 `window.ethereum`): connecting, reading and switching its
// chain, and signing typed data. Failures become WalletError with a message a person can act on.

/** EIP-1193 / EIP-1474 codes the page treats specially. */
const USER_REJECTED = 4001;
const UNAUTHORIZED = 4100;
const UNRECOGNIZED_CHAIN = 4902;
const REQUEST_PENDING = -32002;

export class WalletError extends Error {
  /** @param {'missing'|'rejected'|'unknown-chain'|'pending'|'failed'} kind */
  constructor(kind, message) {
    super(message);
    this.kind = kind;
  }
}

/** The injected provider, or a WalletError saying how to get one. */
export function injectedWallet(win = window) {
  const provider = win.ethereum;
  if (!provider || typeof provider.request !== 'function') {
    throw new WalletError(
      'missing',
      'No browser wallet found. Install or enable a wallet extension that supports Base (for example MetaMask, Coinbase Wallet or Rabby), then reload this page.',
    );
  }
  return provider;
}

/** Asks the wallet for an account; resolves with the first one. */
export async function connectWallet(provider) {
  const accounts = await call(provider, 'eth_requestAccounts', [], 'connect your wallet');
  if (!Array.isArray(accounts) || accounts.length === 0) throw new WalletError('failed', 'The wallet shared no account. Unlock it and try again.');
  return accounts[0];
}

/** The chain the wallet is on, as a number. */
export async function walletChainId(provider) {
  const hex = await call(provider, 'eth_chainId', [], 'read the wallet network');
  return Number.parseInt(String(hex), 16);
}

/** Asks the wallet to move to `chainId`. */
export async function switchWalletChain(provider, chainId, name) {
  await call(provider, 'wallet_switchEthereumChain', [{ chainId: `0x${chainId.toString(16)}` }], `switch to ${name}`, {
    [UNRECOGNIZED_CHAIN]: () => new WalletError('unknown-chain', `Your wallet does not know ${name} yet. Add the ${name} network in your wallet, then try again.`),
  });
}

/** eth_signTypedData_v4 of `typedData` by `account`; resolves with the 65-byte signature as hex. */
export async function signTypedData(provider, account, typedData) {
  return call(provider, 'eth_signTypedData_v4', [account, JSON.stringify(typedData)], 'sign the payment');
}

async function call(provider, method, params, what, special = {}) {
  try {
    return await provider.request({ method, params });
  } catch (error) {
    const code = typeof error === 'object' && error !== null ? Number(error.code) : NaN;
    if (special[code]) throw special[code]();
    if (code === USER_REJECTED) throw new WalletError('rejected', `You declined to ${what} in your wallet. Nothing was paid.`);
    if (code === UNAUTHORIZED) throw new WalletError('rejected', `The wallet did not allow this page to ${what}. Connect the wallet to this site and try again.`);
    if (code === REQUEST_PENDING) throw new WalletError('pending', 'Your wallet already has a request waiting. Open the wallet, answer it, then try again.');
    const detail = typeof error?.message === 'string' && error.message !== '' ? ` (${error.message})` : '';
    throw new WalletError('failed', `The wallet could not ${what}${detail}.`);
  }
}

// ---- Solana wallets (Wallet Standard: Phantom, Solflare, Backpack… register themselves) -----------

/**
 * The Solana wallets registered through the Wallet Standard that can sign a transaction for `chain`
 * ("solana:mainnet"): the page announces itself ('wallet-standard:app-ready') and listens for wallets
 * that register now or later ('wallet-standard:register-wallet').
 */
const standardWallets = [];
export function listenForSolanaWallets(win = window) {
  const register = (...wallets) => {
    standardWallets.push(...wallets);
    return () => undefined;
  };
  win.addEventListener('wallet-standard:register-wallet', (event) => event.detail?.({ register }));
  win.dispatchEvent(new CustomEvent('wallet-standard:app-ready', { detail: { register } }));
}

/** The first registered wallet that signs Solana transactions on `chain`, or a WalletError saying how to get one. */
export function solanaWallet(chain) {
  const wallet = standardWallets.find((w) => w.features?.['solana:signTransaction'] && w.features?.['standard:connect'] && (w.chains ?? []).includes(chain));
  if (!wallet) {
    throw new WalletError('missing', 'No Solana wallet found. Install or enable a Solana wallet extension (for example Phantom, Solflare or Backpack), then reload this page.');
  }
  return wallet;
}

/** Connects the Solana wallet; resolves with its first account ({ address, … }). */
export async function connectSolanaWallet(wallet) {
  const { accounts } = await callSolana(() => wallet.features['standard:connect'].connect(), 'connect your wallet');
  const account = accounts?.[0] ?? wallet.accounts?.[0];
  if (!account) throw new WalletError('failed', 'The wallet shared no account. Unlock it and try again.');
  return account;
}

/** Has the wallet add its signature to the transaction's wire bytes; resolves with the signed bytes. */
export async function signSolanaTransaction(wallet, account, chain, transaction) {
  const [output] = await callSolana(
    () => wallet.features['solana:signTransaction'].signTransaction({ account, chain, transaction }),
    'sign the payment',
  );
  if (!(output?.signedTransaction instanceof Uint8Array)) throw new WalletError('failed', 'The wallet returned no signed transaction.');
  return output.signedTransaction;
}

async function callSolana(request, what) {
  try {
    return await request();
  } catch (error) {
    // Wallets report a refusal as WalletSignTransactionError / code 4001 / "User rejected".
    const rejected = Number(error?.code) === USER_REJECTED || /reject|declin|cancel/i.test(String(error?.message ?? error?.name ?? ''));
    if (rejected) throw new WalletError('rejected', `You declined to ${what} in your wallet. Nothing was paid.`);
    const detail = typeof error?.message === 'string' && error.message !== '' ? ` (${error.message})` : '';
    throw new WalletError('failed', `The wallet could not ${what}${detail}.`);
  }
}
