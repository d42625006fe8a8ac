/**
 * Floor (b), catalog: answers catalog requests on NATS with the requested app's cached payload read
 * from Redis, passed through as bytes, queue-grouped, no NestJS.
 */
import { connect } from '@nats-io/transport-node';
import { Redis } from 'ioredis';
import { FLOOR_CATALOG_SUBJECT, floorPayloadKey, FLOOR_QUEUE, required } from './floor-env.js';

const nats = await connect({ servers: required('NATS_URL'), name: 'bench-floor-catalog' });
const redis = new Redis(required('REDIS_URL'));

nats.subscribe(FLOOR_CATALOG_SUBJECT, {
  queue: FLOOR_QUEUE,
  callback: (error, message) => {
    if (error) return;
    const { query } = message.json<{ query: { route: string; appId?: string } }>();
    if (typeof query?.route !== 'string' || typeof query.appId !== 'string') return void message.respond('null');
    redis.getBuffer(floorPayloadKey(query.appId)).then(
      (raw) => message.respond(raw ?? 'null'),
      () => message.respond('null'),
    );
  },
});
await nats.flush();
process.stdout.write('answering on NATS\n');
process.once('SIGTERM', () => void nats.drain().then(() => process.exit(0)));
