/**
 * The reference for x402: @x402/express's payment middleware (the official resource server, exact
 * EVM scheme) protecting the same data, read from Redis, with the same facilitator as ours.
 */
import { HTTPFacilitatorClient } from '@x402/core/server';
import { ExactEvmScheme } from '@x402/evm/exact/server';
import { paymentMiddleware, x402ResourceServer } from '@x402/express';
import express from 'express';
import { Redis } from 'ioredis';
import { envelopeAround, FLOOR_PAYLOAD_KEY, required } from './floor-env.js';

const NETWORK = 'eip155:8453';
const redis = new Redis(required('REDIS_URL'));
const server = new x402ResourceServer(new HTTPFacilitatorClient({ url: required('FACILITATOR_URL') })).register(NETWORK, new ExactEvmScheme());
const app = express();
app.use(
  paymentMiddleware(
    {
      'GET /api/apps/*': {
        accepts: { scheme: 'exact', network: NETWORK, payTo: required('PAY_TO'), price: '$0.003' },
        description: 'Look up one App Store app',
        mimeType: 'application/json',
      },
    },
    server,
  ),
);
app.get('/api/apps/:appId', async (_request: unknown, response: { type(t: string): { send(body: string): void } }) => {
  const raw = await redis.get(FLOOR_PAYLOAD_KEY);
  response.type('application/json; charset=utf-8').send(envelopeAround(raw ?? 'null'));
});
const listener = app.listen(Number(required('PORT')), '127.0.0.1', () => process.stdout.write(`listening on http://127.0.0.1:${required('PORT')}\n`));
process.once('SIGTERM', () => listener.close(() => void redis.quit().then(() => process.exit(0))));
