/**
 * The reference for x402: @x402/express's payment middleware (the official resource server, exact
 * EVM scheme) protecting the same data, read from Redis, with the same facilitator as ours.
 */
import { HTTPFacilitatorClient } from '@x402/core/server';
import { ExactEvmScheme } from '@x402/evm/exact/server';
import { paymentMiddleware, x402ResourceServer } from '@x402/express';
import express from 'express';
import { Redis } from 'ioredis';
import { envelopeAround, FACILITATOR_WAIT_PATH, floorPayloadKey, required } from './floor-env.js';

const NETWORK = 'eip155:8453';
const redis = new Redis(required('REDIS_URL'));

/**
 * The library's facilitator client, timed the way ours is (payments' appcat_x402_facilitator_request_seconds):
 * from the call to verify or settle to its answer, so both servers' own time leaves out the same span.
 */
class TimedFacilitatorClient extends HTTPFacilitatorClient {
  readonly waited = { ms: 0, calls: 0 };

  override verify(...args: Parameters<HTTPFacilitatorClient['verify']>): ReturnType<HTTPFacilitatorClient['verify']> {
    return this.timed(() => super.verify(...args));
  }

  override settle(...args: Parameters<HTTPFacilitatorClient['settle']>): ReturnType<HTTPFacilitatorClient['settle']> {
    return this.timed(() => super.settle(...args));
  }

  private async timed<T>(request: () => Promise<T>): Promise<T> {
    const began = performance.now();
    try {
      return await request();
    } finally {
      this.waited.ms += performance.now() - began;
      this.waited.calls += 1;
    }
  }
}

const facilitator = new TimedFacilitatorClient({ url: required('FACILITATOR_URL') });
const server = new x402ResourceServer(facilitator).register(NETWORK, new ExactEvmScheme());
const app = express();
/** Unpriced: the facilitator time since the last read, for the runner (FACILITATOR_WAIT_PATH). */
app.get(FACILITATOR_WAIT_PATH, (_request: unknown, response: { json(body: unknown): void }) => {
  response.json({ ...facilitator.waited });
  facilitator.waited.ms = 0;
  facilitator.waited.calls = 0;
});
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
app.get(
  '/api/apps/:appId',
  async (request: { params: { appId: string } }, response: { type(t: string): { send(body: string): void } }) => {
    const raw = await redis.get(floorPayloadKey(request.params.appId));
    response.type('application/json; charset=utf-8').send(envelopeAround(raw ?? 'null'));
  },
);
const listener = app.listen(Number(required('PORT')), '127.0.0.1', () =>
  process.stdout.write(`listening on http://127.0.0.1:${required('PORT')}\n`),
);
process.once('SIGTERM', () => listener.close(() => void redis.quit().then(() => process.exit(0))));
