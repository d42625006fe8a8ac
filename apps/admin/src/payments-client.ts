import { randomUUID } from 'node:crypto';
import type { NatsConfig } from '@appcat/config';
import { isWireError } from '@appcat/contracts';
import { connect, type NatsConnection, RequestError } from '@nats-io/transport-node';

/** A failed admin request, with the payments error code or one of this CLI's own. */
export class AdminRequestError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'AdminRequestError';
  }
}

const UNREACHABLE = 'PAYMENTS_UNREACHABLE';
const CONNECT_TIMEOUT_MS = 3_000;

/**
 * Request/reply to the payments service over NATS in Nest's packet format ({pattern, data, id} →
 * {response | err}). The admin subjects are only on NATS, never behind the public HTTP port.
 */
export class PaymentsClient {
  private constructor(
    private readonly connection: NatsConnection,
    private readonly timeoutMs: number,
  ) {}

  static async connect(config: NatsConfig): Promise<PaymentsClient> {
    try {
      const connection = await connect({ servers: config.servers, name: 'appcat-admin', timeout: CONNECT_TIMEOUT_MS, reconnect: false });
      return new PaymentsClient(connection, config.requestTimeoutMs);
    } catch {
      throw new AdminRequestError(UNREACHABLE, `cannot connect to NATS at ${config.servers.join(', ')}`);
    }
  }

  async request<T>(subject: string, data: unknown): Promise<T> {
    let packet: { response?: unknown; err?: unknown };
    try {
      const reply = await this.connection.request(subject, JSON.stringify({ pattern: subject, data, id: randomUUID() }), { timeout: this.timeoutMs });
      packet = reply.json();
    } catch (error) {
      const noResponders = error instanceof RequestError && error.isNoResponders();
      throw new AdminRequestError(UNREACHABLE, noResponders ? 'no payments service is running' : 'the payments service did not answer in time');
    }
    if (packet.err !== undefined && packet.err !== null) {
      if (isWireError(packet.err)) throw new AdminRequestError(packet.err.code, packet.err.message);
      throw new AdminRequestError('INTERNAL', 'payments failed');
    }
    return packet.response as T;
  }

  async close(): Promise<void> {
    await this.connection.close();
  }
}
