// Health probe for containers built from the one appcat image (Docker HEALTHCHECK, Compose, Kubernetes
// exec probes), so no curl or wget needs to be in the image.
//
//   node docker/healthcheck.mjs                   OPS_PORT's /healthz if set, else the gateway's PORT /healthz
//   node docker/healthcheck.mjs <url>             healthy when <url> answers 2xx
//   node docker/healthcheck.mjs <url> --jsonrpc   healthy when a JSON-RPC node (the local chain) answers eth_chainId
//
// Exit 0 healthy, 1 not. The probe gives up after HEALTHCHECK_TIMEOUT_MS (default 2000).
const args = process.argv.slice(2);
const jsonRpc = args.includes('--jsonrpc');
const explicitUrl = args.find((arg) => !arg.startsWith('--'));
const timeoutMs = Number(process.env.HEALTHCHECK_TIMEOUT_MS ?? 2000);

function defaultUrl(env) {
  if (env.OPS_PORT) return `http://127.0.0.1:${env.OPS_PORT}/healthz`;
  return `http://127.0.0.1:${env.PORT ?? 3000}/healthz`;
}

async function probe(url) {
  const init = jsonRpc
    ? {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
      }
    : { method: 'GET' };
  const response = await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
  const body = await response.text();
  if (!response.ok) return `HTTP ${response.status}`;
  if (jsonRpc) {
    const reply = JSON.parse(body);
    if (typeof reply.result !== 'string') return `no chain id in ${body.slice(0, 200)}`;
  }
  return undefined;
}

const url = explicitUrl ?? defaultUrl(process.env);
try {
  const problem = await probe(url);
  if (problem) {
    process.stderr.write(`unhealthy: ${url}: ${problem}\n`);
    process.exit(1);
  }
} catch (error) {
  process.stderr.write(`unhealthy: ${url}: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
