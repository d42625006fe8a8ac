import { parseArgs } from 'node:util';
import { readConfig, readNatsConfig } from '@appcat/config';
import {
  type AdminCreateKeyRequest,
  type AdminKeyCreated,
  type AdminKeyDetails,
  type AdminKeyList,
  type AdminReconcileReply,
  parseUsd,
  Subject,
} from '@appcat/contracts';
import { ExitCode, exitCodeFor } from './exit-codes.js';
import { createdJson, createdText, detailsJson, detailsText, listJson, listText, STORE_KEY_WARNING } from './output.js';
import { reconcileExitCode, reconcileJson, reconcileText } from './reconcile-output.js';
import { NatsRpcClient, RpcCallError } from '@appcat/microservice';

export const USAGE = `usage: npm run admin -- keys <command> [options]
       npm run admin -- reconcile [--wait <seconds>]

commands:
  keys create --credit <usd> [--note <text>]   issue a key with an opening credit (0 allowed); the key is printed once
  keys revoke <key|prefix|id>                  revoke a key at once, everywhere
  keys show <key|prefix|id>                    status, balance, top-ups and spent credit of one key
  keys list                                    every key with its balance
  reconcile [--wait <seconds>]                 prove the books: per key Postgres totals = their rows, Redis balance =
                                               top-ups − spent − unflushed debits; every x402 top-up settled once.
                                               Waits up to --wait (default 10) for the write-behind to reach Postgres

options:
  --json    print exactly one JSON object on stdout (errors too: {"error": {"code", "message"}})
  -h, --help

USD amounts have at most 6 decimals ("5", "0.003"). Talks to the payments service over NATS (NATS_URL).

exit codes:
  0  ok
  1  unexpected failure
  2  usage: bad command line or an argument payments refused
  3  no key matches, or a prefix matches several
  4  payments unreachable: NATS down, no payments service, or no answer in time
  5  payments cannot reach its Redis or Postgres
  6  reconcile: the books differ (a key short of credit or forgiven some, a Postgres total off, a settlement unmatched)
  7  reconcile: nothing differs, but debits or settlement records were still on their way to Postgres after --wait`;

export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
}

type Command =
  | { kind: 'create'; request: AdminCreateKeyRequest }
  | { kind: 'revoke' | 'show'; ref: string }
  | { kind: 'list' }
  | { kind: 'reconcile'; waitMs: number }
  | { kind: 'help' };

class UsageError extends Error {}

function parseCommand(argv: string[]): { command: Command; json: boolean } {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        credit: { type: 'string' },
        note: { type: 'string' },
        wait: { type: 'string' },
        json: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  const json = values.json === true;
  if (values.help || positionals.length === 0 || positionals[0] === 'help') return { command: { kind: 'help' }, json };
  const [group, action, ...rest] = positionals;
  if (group === 'reconcile') {
    if (values.credit !== undefined || values.note !== undefined)
      throw new UsageError('reconcile takes only --wait and --json');
    if (positionals.length > 1) throw new UsageError('reconcile takes no arguments');
    const seconds = values.wait ?? '10';
    if (!/^\d{1,3}$/.test(seconds) || Number(seconds) > 120)
      throw new UsageError(`--wait must be whole seconds from 0 to 120, got ${JSON.stringify(seconds)}`);
    return { command: { kind: 'reconcile', waitMs: Number(seconds) * 1000 }, json };
  }
  if (values.wait !== undefined) throw new UsageError('--wait applies to reconcile only');
  if (group !== 'keys') throw new UsageError(`unknown command ${JSON.stringify(group)}`);
  const noOptionsBut = (...allowed: string[]) => {
    for (const name of ['credit', 'note'] as const) {
      if (values[name] !== undefined && !allowed.includes(name))
        throw new UsageError(`--${name} does not apply to keys ${action}`);
    }
  };
  switch (action) {
    case 'create': {
      noOptionsBut('credit', 'note');
      if (rest.length > 0) throw new UsageError('keys create takes no arguments, only --credit and --note');
      if (values.credit === undefined) throw new UsageError('keys create needs --credit <usd> (0 for an empty key)');
      const micros = parseUsd(values.credit);
      if (micros === null)
        throw new UsageError(
          `--credit must be a USD amount with at most 6 decimals, got ${JSON.stringify(values.credit)}`,
        );
      return {
        command: {
          kind: 'create',
          request: { credit: micros.toString(), ...(values.note ? { note: values.note } : {}) },
        },
        json,
      };
    }
    case 'revoke':
    case 'show':
      noOptionsBut();
      if (rest.length !== 1) throw new UsageError(`keys ${action} needs exactly one <key|prefix|id>`);
      return { command: { kind: action, ref: rest[0] }, json };
    case 'list':
      noOptionsBut();
      if (rest.length > 0) throw new UsageError('keys list takes no arguments');
      return { command: { kind: 'list' }, json };
    default:
      throw new UsageError(`unknown command keys ${JSON.stringify(action ?? '')}`);
  }
}

/** Runs one admin command and returns its exit code; the key, when created, is written only to stdout. */
export async function runCli(argv: string[], env: Record<string, string | undefined>, io: CliIo): Promise<ExitCode> {
  const json = argv.includes('--json');
  const fail = (code: string, message: string): ExitCode => {
    if (json) io.stdout(JSON.stringify({ error: { code, message } }));
    else io.stderr(`error: ${message}${code === 'USAGE' ? `\n\n${USAGE}` : ''}`);
    return exitCodeFor(code);
  };

  let command: Command;
  try {
    command = parseCommand(argv).command;
  } catch (error) {
    if (error instanceof UsageError) return fail('USAGE', error.message);
    throw error;
  }
  if (command.kind === 'help') {
    io.stdout(json ? JSON.stringify({ usage: USAGE }) : USAGE);
    return ExitCode.Ok;
  }

  let nats;
  try {
    nats = readConfig(readNatsConfig, env);
  } catch (error) {
    return fail('USAGE', (error as Error).message);
  }
  let client: NatsRpcClient | undefined;
  const payments = { service: 'payments' };
  try {
    client = await NatsRpcClient.connect(nats, 'appcat-admin', { failFast: true });
    switch (command.kind) {
      case 'create': {
        const created = await client.request<AdminKeyCreated>(Subject.AdminKeysCreate, command.request, payments);
        io.stdout(json ? JSON.stringify(createdJson(created)) : createdText(created));
        io.stderr(`warning: ${STORE_KEY_WARNING}`);
        break;
      }
      case 'revoke':
      case 'show': {
        const subject = command.kind === 'revoke' ? Subject.AdminKeysRevoke : Subject.AdminKeysShow;
        const details = await client.request<AdminKeyDetails>(subject, { ref: command.ref }, payments);
        io.stdout(json ? JSON.stringify(detailsJson(details)) : detailsText(details));
        break;
      }
      case 'list': {
        const list = await client.request<AdminKeyList>(Subject.AdminKeysList, {}, payments);
        io.stdout(json ? JSON.stringify(listJson(list)) : listText(list));
        break;
      }
      case 'reconcile': {
        // The reply comes after the wait for the write-behind, plus the check itself.
        const reply = await client.request<AdminReconcileReply>(
          Subject.AdminReconcile,
          { waitMs: command.waitMs },
          { ...payments, timeoutMs: command.waitMs + 30_000 },
        );
        io.stdout(json ? JSON.stringify(reconcileJson(reply)) : reconcileText(reply));
        return reconcileExitCode(reply);
      }
    }
    return ExitCode.Ok;
  } catch (error) {
    if (error instanceof RpcCallError) return fail(error.code, error.message);
    return fail('INTERNAL', error instanceof Error ? error.message : String(error));
  } finally {
    await client?.close().catch(() => undefined);
  }
}
