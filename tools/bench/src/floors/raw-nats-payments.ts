/**
 * Floor (b), payments: answers debits on NATS with the real service's Redis Lua debit (CreditStore),
 * queue-grouped, no NestJS. Its ledger goes to a stream of its own that nothing flushes.
 */
import { CreditKeyspace, CreditStore } from '@appcat/payments';
import { connect } from '@nats-io/transport-node';
import { Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';
import { FLOOR_DEBIT_SUBJECT, FLOOR_QUEUE, required } from './floor-env.js';

const nats = await connect({ servers: required('NATS_URL'), name: 'bench-floor-payments' });
// One shard, as payments on one Redis: the keys the bench loaded through payments are found under the same names.
const store = new CreditStore(new Redis(required('REDIS_URL')), new CreditKeyspace(required('LEDGER_STREAM'), 1));

nats.subscribe(FLOOR_DEBIT_SUBJECT, {
  queue: FLOOR_QUEUE,
  callback: (error, message) => {
    if (error) return;
    const request = message.json<{ keyHash: string; amount: string; route: string }>();
    store
      .debit(request.keyHash, {
        debitId: randomUUID(),
        amount: BigInt(request.amount),
        route: request.route,
        chargedAtMs: Date.now(),
      })
      .then(
        (outcome) =>
          message.respond(
            JSON.stringify(outcome.kind === 'ok' ? { balance: outcome.balance.toString() } : { error: outcome.kind }),
          ),
        (failure: unknown) => message.respond(JSON.stringify({ error: String(failure) })),
      );
  },
});
await nats.flush();
process.stdout.write('answering on NATS\n');
process.once('SIGTERM', () => void nats.drain().then(() => process.exit(0)));
