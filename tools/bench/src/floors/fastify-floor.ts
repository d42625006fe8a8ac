/**
 * Floor (a): a bare Fastify server answering the priced path with the payload straight from Redis,
 * no payment and no hops. Nothing on the credit path can be faster than this.
 */
import { fastify } from 'fastify';
import { Redis } from 'ioredis';
import { envelopeAround, FLOOR_PAYLOAD_KEY, required } from './floor-env.js';

const redis = new Redis(required('REDIS_URL'));
const app = fastify({ logger: false });
app.get('/api/apps/:appId', async (_request, reply) => {
  const raw = await redis.get(FLOOR_PAYLOAD_KEY);
  return reply.type('application/json; charset=utf-8').send(envelopeAround(raw ?? 'null'));
});
await app.listen({ port: Number(required('PORT')), host: '127.0.0.1' });
process.stdout.write(`listening on ${app.listeningOrigin}\n`);
process.once('SIGTERM', () => void app.close().then(() => redis.quit()).then(() => process.exit(0)));
