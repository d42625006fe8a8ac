import { connect } from 'node:net';
import { startNatsServer, startRedisServer } from './processes.js';

async function roundTrip(port: number, send: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let data = '';
    socket.on('data', (chunk) => {
      data += chunk.toString();
      if (data.includes('\n')) {
        socket.end();
        resolve(data);
      }
    });
    socket.on('error', reject);
    if (send) socket.write(send);
  });
}

describe('private servers', () => {
  it('starts and stops a redis-server that answers PING', async () => {
    const redis = await startRedisServer();
    try {
      expect(await roundTrip(redis.port, 'PING\r\n')).toBe('+PONG\r\n');
    } finally {
      await redis.stop();
    }
  });

  it('starts a nats-server that greets with INFO', async () => {
    const nats = await startNatsServer();
    try {
      expect(await roundTrip(nats.port, '')).toMatch(/^INFO /);
    } finally {
      await nats.stop();
    }
  });
});
