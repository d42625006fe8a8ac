/**
 * Floor (a): a bare Fastify server answering the priced path with the app's payload straight from Redis,
 * no payment and no hops. Nothing on the credit path can be faster than this.
 */
import { fastify } from 'fastify';
import { Redis } from 'ioredis';
import { envelopeAround, floorPayloadKey, required } from './floor-env.js';

const redis = new Redis(required('REDIS_URL'));
const app = fastify({ logger: false });
app.get<{ Params: { appId: string } }>('/api/apps/:appId', async (request, reply) => {
  const raw = await redis.get(floorPayloadKey(request.params.appId));
  return reply.type('application/json; charset=utf-8').send(envelopeAround(raw ?? 'null'));
});
await app.listen({ port: Number(required('PORT')), host: '127.0.0.1' });
process.stdout.write(`listening on ${app.listeningOrigin}\n`);
process.once(
  'SIGTERM',
  () =>
    void app
      .close()
      .then(() => redis.quit())
      .then(() => process.exit(0)),
);
