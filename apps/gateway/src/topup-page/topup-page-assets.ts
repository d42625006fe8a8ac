import { readFileSync } from 'node:fs';

/** One file of the top-up page, held in memory with the content type it is served as. */
export interface PageAsset {
  body: string;
  contentType: string;
}

/**
 * The files of the top-up page, served under /topup/<name>. They live in ./static beside this module,
 * in src as in dist (the gateway's build copies them), so the page is plain HTML, CSS and ES modules
 * a browser loads without a bundler.
 */
export const TOPUP_ASSET_TYPES: Readonly<Record<string, string>> = {
  'topup.js': 'text/javascript; charset=utf-8',
  'payment.js': 'text/javascript; charset=utf-8',
  'wallet.js': 'text/javascript; charset=utf-8',
  'topup.css': 'text/css; charset=utf-8',
};

export const TOPUP_PAGE_TYPE = 'text/html; charset=utf-8';

const STATIC_DIR = new URL('./static/', import.meta.url);

const SOLANA_RPC_PLACEHOLDER = '{{SOLANA_RPC_URL}}';

/**
 * Reads the page and its assets once; a missing file fails start-up rather than a visitor's request.
 * The page learns the Solana RPC it reads blockhashes from through a meta tag filled in here.
 */
export function loadTopUpPage(solanaRpcUrl: string): { page: PageAsset; assets: ReadonlyMap<string, PageAsset> } {
  const read = (name: string) => readFileSync(new URL(name, STATIC_DIR), 'utf8');
  const escaped = solanaRpcUrl.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
  return {
    page: { body: read('topup.html').replace(SOLANA_RPC_PLACEHOLDER, escaped), contentType: TOPUP_PAGE_TYPE },
    assets: new Map(
      Object.entries(TOPUP_ASSET_TYPES).map(([name, contentType]) => [name, { body: read(name), contentType }]),
    ),
  };
}

/**
 * Headers for every file of the page. The policy lets the page load only its own scripts and styles
 * and talk only to this origin and the Solana RPC it reads blockhashes from: no inline script, no
 * third-party code near a wallet.
 */
export function topUpSecurityHeaders(solanaRpcUrl: string): Readonly<Record<string, string>> {
  return { ...TOPUP_SECURITY_HEADERS, 'content-security-policy': contentSecurityPolicy(new URL(solanaRpcUrl).origin) };
}

function contentSecurityPolicy(connectOrigin?: string): string {
  return (
    `default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'${connectOrigin ? ` ${connectOrigin}` : ''}; img-src 'self' data:; ` +
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
  );
}

const TOPUP_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': contentSecurityPolicy(),
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-cache',
};
