/**
 * Floor (b), gateway: the priced credit path with the raw NATS client and no NestJS. Hashes the key,
 * asks the floor payments process for the debit, then the floor catalog process for the data, and
 * wraps the data in the envelope without parsing it. Same Fastify as the real gateway.
 */
import { connect } from '@nats-io/transport-node';
import { fastify } from 'fastify';
import { createHash } from 'node:crypto';
import { envelopeAround, FLOOR_CATALOG_SUBJECT, FLOOR_DEBIT_SUBJECT, required } from './floor-env.js';

const nats = await connect({ servers: required('NATS_URL'), name: 'bench-floor-gateway' });
const app = fastify({ logger: false });
const encoder = new TextEncoder();
const decoder = new TextDecoder();

app.get<{ Params: { appId: string } }>('/api/apps/:appId', async (request, reply) => {
  const key = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
  if (!key) return reply.code(401).send({ status: 401, message: 'unauthorized', data: null });
  const keyHash = createHash('sha256').update(key).digest('hex');
  const debit = await nats.request(
    FLOOR_DEBIT_SUBJECT,
    encoder.encode(JSON.stringify({ keyHash, amount: '3000', route: 'apps.get' })),
    { timeout: 10_000 },
  );
  const charged = debit.json<{ balance?: string; error?: string }>();
  if (charged.balance === undefined)
    return reply.code(402).send({ status: 402, message: charged.error ?? 'refused', data: null });
  const query = { route: 'apps.get', appId: request.params.appId, country: 'us' };
  const data = await nats.request(FLOOR_CATALOG_SUBJECT, encoder.encode(JSON.stringify({ query })), {
    timeout: 10_000,
  });
  return reply
    .header('x-credits-remaining', charged.balance)
    .type('application/json; charset=utf-8')
    .send(envelopeAround(decoder.decode(data.data)));
});
await app.listen({ port: Number(required('PORT')), host: '127.0.0.1' });
process.stdout.write(`listening on ${app.listeningOrigin}\n`);
process.once(
  'SIGTERM',
  () =>
    void app
      .close()
      .then(() => nats.drain())
      .then(() => process.exit(0)),
);
