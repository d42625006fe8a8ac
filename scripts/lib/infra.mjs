// Finds Postgres, Redis and NATS at the configured URLs and, when one does not answer, starts a local
// one: from Debian's packages when running as root (installing them if missing), otherwise through
// Docker Compose when an engine is there. Only Node built-ins: this runs before `npm ci`.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { Socket } from 'node:net';

export const defaults = {
  DATABASE_URL: 'postgresql://postgres:postgres@127.0.0.1:5432/appcat',
  REDIS_URL: 'redis://127.0.0.1:6379',
  NATS_URL: 'nats://127.0.0.1:4222',
};

export function log(message) {
  process.stdout.write(`[appcat] ${message}\n`);
}

export function hostPort(url, fallbackPort) {
  const first = url.split(',')[0].trim();
  const parsed = new URL(first);
  return { host: parsed.hostname.replace(/^\[|\]$/g, ''), port: Number(parsed.port || fallbackPort) };
}

export function isListening({ host, port }, timeoutMs = 1000) {
  return new Promise((resolve) => {
    const socket = new Socket();
    const done = (open) => {
      socket.destroy();
      resolve(open);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
    socket.connect(port, host);
  });
}

export async function waitListening(target, timeoutMs, what) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await isListening(target)) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${what} did not start listening on ${target.host}:${target.port} within ${timeoutMs / 1000} s`);
}

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
const isLocal = (host) => ['127.0.0.1', 'localhost', '::1'].includes(host);
const which = (bin) => spawnSync('sh', ['-c', `command -v ${bin}`], { encoding: 'utf8' }).stdout.trim();

function run(cmd, args, options = {}) {
  execFileSync(cmd, args, { stdio: ['ignore', 'inherit', 'inherit'], ...options });
}

let aptUpdated = false;
function aptInstall(packages) {
  if (!aptUpdated) {
    log('apt-get update');
    run('apt-get', ['update', '-qq']);
    aptUpdated = true;
  }
  log(`apt-get install ${packages.join(' ')}`);
  run('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...packages], {
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
}

function dockerComposeAvailable() {
  return which('docker') !== '' && spawnSync('docker', ['info'], { stdio: 'ignore' }).status === 0;
}

const services = {
  postgres: {
    packages: ['postgresql'],
    binary: () => existsSync('/etc/postgresql') && readdirSync('/etc/postgresql').length > 0,
    start() {
      const version = readdirSync('/etc/postgresql').sort().at(-1);
      run('pg_ctlcluster', ['--skip-systemctl-redirect', version, 'main', 'start']);
    },
    // A Postgres we installed ourselves uses password auth on TCP: give the postgres role the
    // password of the default DATABASE_URL (local use only).
    afterInstall() {
      run('su', ['postgres', '-c', `psql -q -c "ALTER USER postgres PASSWORD 'postgres'"`]);
    },
  },
  redis: {
    packages: ['redis-server'],
    binary: () => which('redis-server') !== '',
    start(port) {
      mkdirSync('/var/lib/redis', { recursive: true });
      mkdirSync('/var/log/redis', { recursive: true });
      run('redis-server', ['--daemonize', 'yes', '--bind', '127.0.0.1', '--port', String(port), '--save', '', '--appendonly', 'no',
        '--dir', '/var/lib/redis', '--logfile', '/var/log/redis/appcat.log']);
    },
  },
  nats: {
    packages: ['nats-server'],
    binary: () => which('nats-server') !== '',
    start(port) {
      mkdirSync('/var/lib/nats-server', { recursive: true });
      run('start-stop-daemon', ['--start', '--oknodo', '--background', '--exec', which('nats-server'), '--',
        '-a', '127.0.0.1', '-p', String(port), '-js', '-sd', '/var/lib/nats-server', '-l', '/var/log/nats-server.log']);
    },
  },
};

/** Makes sure the binaries the test suites spawn privately (nats-server, redis-server) are installed. */
export function ensureBinaries(names) {
  const missing = names.filter((name) => !services[name].binary());
  if (missing.length === 0) return;
  if (!isRoot) throw new Error(`missing ${missing.join(', ')}: install ${missing.flatMap((n) => services[n].packages).join(' ')}`);
  aptInstall(missing.flatMap((name) => services[name].packages));
}

/** The browser the top-up page's end-to-end test drives (playwright-core with Debian's chromium). */
export const CHROMIUM_PATH = '/usr/bin/chromium';

/** Installs Debian's chromium when it is missing; without root, says how and lets that one suite fail. */
export function ensureChromium() {
  if (existsSync(CHROMIUM_PATH)) return;
  if (!isRoot) {
    log(`${CHROMIUM_PATH} is missing: the /topup page test will fail until \`apt-get install -y chromium\` is run as root`);
    return;
  }
  aptInstall(['chromium', 'fonts-liberation']); // no recommends otherwise: a font, so screenshots are readable
}

/**
 * Ensures each dependency answers; returns the names of those this call started, so a caller that
 * owns them can stop them again.
 */
export async function ensureInfrastructure(env = process.env) {
  const targets = {
    postgres: hostPort(env.DATABASE_URL ?? defaults.DATABASE_URL, 5432),
    redis: hostPort(env.REDIS_URL ?? defaults.REDIS_URL, 6379),
    nats: hostPort(env.NATS_URL ?? defaults.NATS_URL, 4222),
  };
  const down = [];
  for (const [name, target] of Object.entries(targets)) {
    if (!(await isListening(target))) down.push(name);
  }
  if (down.length === 0) return [];
  const remote = down.filter((name) => !isLocal(targets[name].host));
  if (remote.length > 0) {
    throw new Error(`${remote.join(', ')} at a non-local address does not answer: ${remote.map((n) => `${targets[n].host}:${targets[n].port}`).join(', ')}`);
  }
  if (isRoot) {
    const toInstall = down.filter((name) => !services[name].binary());
    if (toInstall.length > 0) aptInstall(toInstall.flatMap((name) => services[name].packages));
    for (const name of down) {
      log(`starting local ${name} on port ${targets[name].port}`);
      services[name].start(targets[name].port);
      await waitListening(targets[name], 30_000, name);
      if (toInstall.includes(name)) services[name].afterInstall?.();
    }
    return down;
  }
  if (dockerComposeAvailable()) {
    log(`starting ${down.join(', ')} with Docker Compose`);
    run('docker', ['compose', 'up', '-d', '--wait', ...down]);
    return [];
  }
  throw new Error(
    `${down.join(', ')} not reachable. Start them, point DATABASE_URL / REDIS_URL / NATS_URL at running ones, ` +
      'run this as root on Debian/Ubuntu (it installs and starts them), or install Docker.',
  );
}

/** Runs `npm ci` when node_modules is missing or older than the lock file. */
export function ensureDependencies(root) {
  const installed = `${root}/node_modules/.package-lock.json`;
  if (existsSync(installed) && statSync(installed).mtimeMs >= statSync(`${root}/package-lock.json`).mtimeMs) return;
  log('installing dependencies (npm ci)');
  run('npm', ['ci', '--no-audit', '--no-fund'], { cwd: root });
}
