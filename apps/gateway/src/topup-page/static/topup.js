// The top-up page: a person picks an amount and a network, connects a browser wallet, signs a USDC
// transfer authorization, and gets a new API key (or more credit on theirs). The gateway's own x402
// flow does the rest: an unpaid POST /api/credits/topup answers 402 with the offers, the paid retry
// carries the signed payload in `payment-signature`.
import {
  chainIdOf,
  chainName,
  decodePaymentRequired,
  encodePaymentSignature,
  evmAccepts,
  formatMicros,
  networkName,
  parseTopUpAmount,
  paymentPayload,
  randomNonce,
  solanaAccepts,
  solanaPaymentPayload,
  solanaTransferTransaction,
  transferAuthorization,
  transferAuthorizationTypedData,
  walletChainOf,
} from './payment.js';
import {
  WalletError,
  connectSolanaWallet,
  connectWallet,
  injectedWallet,
  listenForSolanaWallets,
  signSolanaTransaction,
  signTypedData,
  solanaWallet,
  switchWalletChain,
  walletChainId,
} from './wallet.js';

const TOPUP_PATH = '/api/credits/topup';
const BALANCE_PATH = '/api/credits/balance';

const $ = (id) => document.getElementById(id);
const ui = {
  form: $('topup-form'),
  modeNew: $('key-mode-new'),
  modeExisting: $('key-mode-existing'),
  keyField: $('api-key-field'),
  key: $('api-key'),
  keyError: $('api-key-error'),
  amount: $('amount'),
  amountError: $('amount-error'),
  network: $('network'),
  connect: $('connect-button'),
  walletState: $('wallet-state'),
  pay: $('pay-button'),
  status: $('status'),
  error: $('error'),
  errorTitle: $('error-title'),
  errorMessage: $('error-message'),
  switchButton: $('switch-button'),
  result: $('result'),
  resultTitle: $('result-title'),
  newKey: $('new-key'),
  newKeyValue: $('new-key-value'),
  copy: $('copy-button'),
  copyState: $('copy-state'),
  resultPrefix: $('result-prefix'),
  resultCredited: $('result-credited'),
  resultBalance: $('result-balance'),
};

/** An error already worded for the person reading the page. */
class PageError extends Error {
  constructor(title, message, options = {}) {
    super(message);
    this.title = title;
    this.focus = options.focus;
  }
}

let busy = false;
/** What the switch button does once the wallet is on the right network: the payment it interrupted. */
let pendingSwitch = null;

// ---- page set-up -------------------------------------------------------------------------------

for (const el of document.querySelectorAll('.origin')) el.textContent = location.origin;
for (const radio of [ui.modeNew, ui.modeExisting]) radio.addEventListener('change', showKeyField);
ui.amount.addEventListener('input', () => clearFieldError(ui.amount, ui.amountError));
ui.key.addEventListener('input', () => clearFieldError(ui.key, ui.keyError));
ui.connect.addEventListener('click', () => run(connect));
ui.form.addEventListener('submit', (event) => {
  event.preventDefault();
  run(pay);
});
ui.switchButton.addEventListener('click', () => run(switchAndPay));
ui.copy.addEventListener('click', copyKey);
showKeyField();
watchWallet();
listenForSolanaWallets();
loadNetworks();

function showKeyField() {
  ui.keyField.hidden = !ui.modeExisting.checked;
}

/** The offers of a challenge a browser wallet can pay (EVM or Solana), in the challenge's order. */
function payableAccepts(required) {
  const payable = new Set([...evmAccepts(required), ...solanaAccepts(required)]);
  return required.accepts.filter((offer) => payable.has(offer));
}

/** Offers the networks of the gateway's own top-up challenge that a browser wallet can pay. */
async function loadNetworks() {
  const amount = parseTopUpAmount(ui.amount.value);
  try {
    const { required } = await challenge(amount.micros ? amount.text : '1', undefined);
    const offers = payableAccepts(required);
    ui.network.replaceChildren(...offers.map((offer) => new Option(`${networkName(offer.network)} (USDC)`, offer.network)));
    if (offers.length === 0) {
      ui.network.append(new Option('No network available', ''));
      showError(new PageError('No network available', 'This service offers no network a browser wallet can pay on right now. Try again later.'));
      return;
    }
    ui.network.disabled = false;
  } catch (error) {
    ui.network.replaceChildren(new Option('Networks could not be loaded', ''));
    showError(error instanceof PageError ? error : new PageError('Networks could not be loaded', `${describe(error)} Reload the page to try again.`));
  }
}

/** Keeps the wallet line true when the person changes account or network in the wallet. */
function watchWallet() {
  const provider = window.ethereum;
  if (!provider || typeof provider.on !== 'function') return;
  provider.on('accountsChanged', () => refreshWalletState(provider));
  provider.on('chainChanged', () => refreshWalletState(provider));
}

async function refreshWalletState(provider) {
  try {
    const accounts = await provider.request({ method: 'eth_accounts', params: [] });
    if (!Array.isArray(accounts) || accounts.length === 0) {
      ui.walletState.textContent = 'No wallet connected.';
      ui.connect.hidden = false;
      return;
    }
    showWallet(accounts[0], await walletChainId(provider));
  } catch {
    // A wallet that cannot say is shown as not connected; paying will ask again.
    ui.walletState.textContent = 'No wallet connected.';
  }
}

function showWallet(account, chainId) {
  ui.walletState.textContent = `Connected: ${account.slice(0, 6)}…${account.slice(-4)} on ${chainName(chainId)}.`;
  // Nothing left to connect: the account and network are changed in the wallet itself.
  ui.connect.hidden = true;
}

// ---- actions -----------------------------------------------------------------------------------

/** Runs one action at a time, with the buttons off and every failure shown in words. */
async function run(action) {
  if (busy) return;
  busy = true;
  ui.form.setAttribute('aria-busy', 'true');
  ui.pay.disabled = ui.connect.disabled = ui.switchButton.disabled = true;
  hideError();
  let failure = null;
  try {
    await action();
  } catch (error) {
    failure = toPageError(error);
  }
  busy = false;
  ui.form.removeAttribute('aria-busy');
  ui.pay.disabled = ui.connect.disabled = ui.switchButton.disabled = false;
  // After the buttons are back on: the error may move the focus to one of them.
  if (failure) {
    setStatus('');
    showError(failure);
  }
}

async function connect() {
  const provider = injectedWallet();
  setStatus('Waiting for your wallet…');
  const account = await connectWallet(provider);
  showWallet(account, await walletChainId(provider));
  setStatus('Wallet connected.');
  ui.pay.focus(); // the connect button is gone; paying is what comes next
}

async function switchAndPay() {
  const target = pendingSwitch;
  if (!target) return pay();
  setStatus(`Asking your wallet to switch to ${target.name}…`);
  await switchWalletChain(injectedWallet(), target.chainId, target.name);
  pendingSwitch = null;
  await pay();
}

async function pay() {
  const amount = readAmount();
  const key = readKey();
  const network = ui.network.value;
  if (!network) throw new PageError('No network chosen', 'Choose the network your USDC is on.', { focus: ui.network });
  if (network.startsWith('solana:')) return paySolana(amount, key, network);
  const provider = injectedWallet();

  if (key) await checkKey(key);

  setStatus('Getting the payment terms…');
  const { required, url } = await challenge(amount.text, key);
  const requirement = evmAccepts(required).find((offer) => offer.network === network);
  if (!requirement) {
    throw new PageError('Network no longer offered', 'The service no longer offers this network. Reload the page and choose another.');
  }
  const chainId = chainIdOf(requirement.network);
  const name = chainName(chainId);

  setStatus('Waiting for your wallet…');
  const account = await connectWallet(provider);
  const walletChain = await walletChainId(provider);
  showWallet(account, walletChain);
  if (walletChain !== chainId) {
    pendingSwitch = { chainId, name };
    ui.switchButton.textContent = `Switch wallet to ${name}`;
    throw new PageError(
      'Wrong network',
      `Your wallet is on ${chainName(walletChain)}, but this payment is in USDC on ${name}. Switch the wallet to ${name} to continue.`,
      { focus: ui.switchButton },
    );
  }

  setStatus(`Confirm the payment of USD ${formatMicros(amount.micros)} in your wallet…`);
  const authorization = transferAuthorization(requirement, account, Math.floor(Date.now() / 1000), randomNonce());
  const signature = await signTypedData(provider, account, transferAuthorizationTypedData(requirement, authorization));

  setStatus(`Payment signed. Settling it on ${name}; this takes a few seconds…`);
  const payload = paymentPayload(required, requirement, authorization, signature);
  const answer = await send(url, { method: 'POST', headers: { ...authHeader(key), 'payment-signature': encodePaymentSignature(payload) } });
  if (answer.status !== 200) throw paymentFailure(answer);
  showResult(answer.body.data, name);
}

/**
 * A Solana payment: the transaction @x402/svm's client would build (the facilitator's fee payer, a
 * USDC TransferChecked of exactly the amount, a memo), on a recent blockhash from the Solana RPC,
 * signed by the person's Solana wallet; the facilitator adds its signature as it settles.
 */
async function paySolana(amount, key, network) {
  const chain = walletChainOf(network);
  const wallet = solanaWallet(chain);
  if (key) await checkKey(key);

  setStatus('Getting the payment terms…');
  const { required, url } = await challenge(amount.text, key);
  const requirement = solanaAccepts(required).find((offer) => offer.network === network);
  if (!requirement) {
    throw new PageError('Network no longer offered', 'The service no longer offers this network. Reload the page and choose another.');
  }
  const name = networkName(network);

  setStatus('Waiting for your wallet…');
  const account = await connectSolanaWallet(wallet);
  ui.walletState.textContent = `Connected: ${account.address.slice(0, 4)}…${account.address.slice(-4)} on ${name}.`;
  const blockhash = await latestSolanaBlockhash();
  const transaction = await solanaTransferTransaction(requirement, account.address, blockhash);

  setStatus(`Confirm the payment of USD ${formatMicros(amount.micros)} in your wallet…`);
  const signed = await signSolanaTransaction(wallet, account, chain, transaction);

  setStatus(`Payment signed. Settling it on ${name}; this takes a few seconds…`);
  const payload = solanaPaymentPayload(required, requirement, signed);
  const answer = await send(url, { method: 'POST', headers: { ...authHeader(key), 'payment-signature': encodePaymentSignature(payload) } });
  if (answer.status !== 200) throw paymentFailure(answer);
  showResult(answer.body.data, name);
}

/** A recent blockhash from the Solana RPC the service names (the page's content policy allows it alone). */
async function latestSolanaBlockhash() {
  const rpc = document.querySelector('meta[name="solana-rpc"]')?.content;
  try {
    const response = await fetch(rpc, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getLatestBlockhash', params: [{ commitment: 'finalized' }] }),
      credentials: 'omit',
    });
    const body = await response.json();
    const blockhash = body?.result?.value?.blockhash;
    if (typeof blockhash !== 'string') throw new Error('no blockhash');
    return blockhash;
  } catch {
    throw new PageError('Solana unreachable', 'The Solana network could not be reached to prepare the payment. Try again in a moment. Nothing was paid.');
  }
}

// ---- talking to the gateway ----------------------------------------------------------------------

/** The unpaid top-up request: a 402 whose `payment-required` header lists what the service accepts. */
async function challenge(amountText, key) {
  const url = `${TOPUP_PATH}?amount=${encodeURIComponent(amountText)}`;
  const answer = await send(url, { method: 'POST', headers: authHeader(key) });
  if (answer.status !== 402) throw paymentFailure(answer);
  return { required: decodePaymentRequired(answer.headers.get('payment-required')), url };
}

/** Refuses an unknown or revoked key before the wallet is asked for anything. */
async function checkKey(key) {
  setStatus('Checking your key…');
  const answer = await send(BALANCE_PATH, { headers: authHeader(key) });
  if (answer.status === 401) {
    throw new PageError('Key not recognised', 'This API key is unknown or revoked, so it cannot be recharged. Check it, or create a new key instead. Nothing was paid.', {
      focus: ui.key,
    });
  }
  if (answer.status !== 200) throw paymentFailure(answer);
}

async function send(url, init) {
  let response;
  try {
    response = await fetch(url, { ...init, cache: 'no-store', credentials: 'omit' });
  } catch {
    throw new PageError('Service unreachable', 'The service could not be reached. Check your connection and try again. Nothing was paid.');
  }
  let body = null;
  try {
    body = await response.json();
  } catch {
    // Not an envelope: described by its status below.
  }
  return { status: response.status, headers: response.headers, body };
}

function authHeader(key) {
  return key ? { authorization: `Bearer ${key}` } : {};
}

/** Words for a gateway answer that is not the one expected, using the envelope's message. */
function paymentFailure(answer) {
  const message = typeof answer.body?.message === 'string' ? answer.body.message : `HTTP ${answer.status}`;
  switch (answer.status) {
    case 400:
      return new PageError('Check the form', `The service refused the request: ${message}.`, { focus: ui.amount });
    case 401:
      return new PageError('Key not recognised', `The service refused the key (${message}). Nothing was charged.`, { focus: ui.key });
    case 402:
      return new PageError('Payment refused', `The payment was not accepted: ${message}.${reasonHint(message)} Nothing was credited; you can try again.`);
    case 502:
      return new PageError('Service problem', `The service could not complete the payment: ${message}.`);
    default:
      return new PageError('Something went wrong', `The service answered ${answer.status}: ${message}.`);
  }
}

/** A plainer word on the refusals a person can fix; the service's own reason is shown as well. */
function reasonHint(message) {
  if (/insufficient_balance|insufficient funds/i.test(message)) return ' Your wallet does not hold enough USDC on this network.';
  if (/expired|valid_before|validbefore/i.test(message)) return " The signature expired before it reached the service; check your computer's clock.";
  if (/already used/i.test(message)) return ' This signed payment was already spent.';
  return '';
}

// ---- form fields -----------------------------------------------------------------------------

function readAmount() {
  const amount = parseTopUpAmount(ui.amount.value);
  if (amount.error) {
    setFieldError(ui.amount, ui.amountError, amount.error);
    throw new PageError('Check the amount', amount.error, { focus: ui.amount });
  }
  return amount;
}

function readKey() {
  if (!ui.modeExisting.checked) return undefined;
  const key = ui.key.value.trim();
  if (key === '' || /\s/.test(key)) {
    const message = key === '' ? 'Paste the API key to recharge.' : 'An API key has no spaces in it.';
    setFieldError(ui.key, ui.keyError, message);
    throw new PageError('Check the key', message, { focus: ui.key });
  }
  return key;
}

function setFieldError(input, holder, message) {
  input.setAttribute('aria-invalid', 'true');
  holder.textContent = message;
  holder.hidden = false;
}

function clearFieldError(input, holder) {
  input.removeAttribute('aria-invalid');
  holder.textContent = '';
  holder.hidden = true;
}

// ---- showing things ----------------------------------------------------------------------------

function setStatus(text) {
  ui.status.textContent = text;
}

function showError(error) {
  ui.errorTitle.textContent = error.title;
  ui.errorMessage.textContent = error.message;
  ui.switchButton.hidden = !(pendingSwitch && error.focus === ui.switchButton);
  ui.error.hidden = false;
  if (error.focus) error.focus.focus();
}

function hideError() {
  ui.error.hidden = true;
  ui.switchButton.hidden = true;
}

function toPageError(error) {
  if (error instanceof PageError) return error;
  if (error instanceof WalletError) {
    const titles = { missing: 'No wallet found', rejected: 'Payment cancelled', 'unknown-chain': 'Network not in your wallet', pending: 'Wallet busy', failed: 'Wallet problem' };
    return new PageError(titles[error.kind] ?? 'Wallet problem', error.message);
  }
  return new PageError('Something went wrong', `${describe(error)} Nothing was paid.`);
}

function describe(error) {
  return error instanceof Error && error.message ? `${error.message.replace(/\.$/, '')}.` : 'An unexpected error happened.';
}

function showResult(data, networkName) {
  const isNewKey = typeof data.apiKey === 'string';
  ui.resultTitle.textContent = isNewKey ? 'Your new API key is ready' : 'Credit added to your key';
  ui.newKey.hidden = !isNewKey;
  ui.newKeyValue.value = isNewKey ? data.apiKey : '';
  ui.copyState.textContent = '';
  ui.resultPrefix.textContent = `${data.prefix}…`;
  ui.resultCredited.textContent = `USD ${data.credited ?? data.balance}`;
  ui.resultBalance.textContent = `USD ${data.balance}`;
  ui.result.hidden = false;
  setStatus(`Paid on ${networkName}. Balance: USD ${data.balance}.`);
  if (!isNewKey) ui.key.value = '';
  ui.resultTitle.focus();
}

async function copyKey() {
  const key = ui.newKeyValue.value;
  try {
    await navigator.clipboard.writeText(key);
    ui.copyState.textContent = 'Key copied to the clipboard. Store it somewhere safe.';
  } catch {
    // No clipboard access (an insecure origin, or permission refused): leave it selected to copy by hand.
    ui.newKeyValue.focus();
    ui.newKeyValue.select();
    ui.copyState.textContent = 'Could not copy automatically. The key is selected: press Ctrl+C (⌘C on a Mac) to copy it.';
  }
}
