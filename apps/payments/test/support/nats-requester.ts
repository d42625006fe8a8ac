import { randomUUID } from 'node:crypto';
import { type WireError, isWireError } from '@appcat/contracts';
import { connect, type NatsConnection } from '@nats-io/transport-node';

export type Reply<T> = { ok: true; value: T } | { ok: false; error: WireError };

/** Speaks Nest's NATS packet format ({pattern, data, id} → {response | err}) the way the gateway does. */
export class NatsRequester {
  private constructor(private readonly connection: NatsConnection) {}

  static async connect(url: string | string[]): Promise<NatsRequester> {
    return new NatsRequester(await connect({ servers: url }));
  }

  async request<T>(subject: string, data: unknown, timeoutMs = 10_000): Promise<Reply<T>> {
    const message = await this.connection.request(
      subject,
      JSON.stringify({ pattern: subject, data, id: randomUUID() }),
      { timeout: timeoutMs },
    );
    const packet = message.json<{ response?: T; err?: unknown }>();
    if (packet.err !== undefined && packet.err !== null) {
      if (!isWireError(packet.err)) throw new Error(`untyped error reply: ${JSON.stringify(packet.err)}`);
      return { ok: false, error: packet.err };
    }
    return { ok: true, value: packet.response as T };
  }

  /** Like request, but fails the test on an error reply. */
  async call<T>(subject: string, data: unknown, timeoutMs?: number): Promise<T> {
    const reply = await this.request<T>(subject, data, timeoutMs);
    if (!reply.ok) throw new Error(`${subject} failed: ${reply.error.code} ${reply.error.message}`);
    return reply.value;
  }

  async close(): Promise<void> {
    await this.connection.drain();
  }
}
