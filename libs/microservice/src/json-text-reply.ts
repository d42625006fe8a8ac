import { headers as natsHeaders, type Msg, type MsgHdrs } from '@nats-io/transport-node';

/** Header of a {@link JsonTextReply}: the field the body belongs to, and the reply's other fields. */
export const JSON_TEXT_REPLY_HEADER = 'Appcat-Json-Text-Reply';

type StringField<T> = { [K in keyof T]: T[K] extends string ? K : never }[keyof T] & string;

/**
 * A reply one of whose fields is already JSON text (catalogue data, several kilobytes). In Nest's
 * packet that text would travel as a JSON string: escaped by the service, unescaped by the caller,
 * a pass over every byte on each side. Sent this way the text is the message body as it is, and the
 * other (small) fields ride in one header; {@link NatsRpcClient} puts the same object back together,
 * so callers see `T` either way.
 */
export class JsonTextReply<T extends object> {
  private constructor(
    private readonly field: string,
    readonly text: string,
    private readonly rest: Partial<T>,
  ) {}

  static of<T extends object>(value: T, field: StringField<T>): JsonTextReply<T> {
    const { [field]: text, ...rest } = value;
    return new JsonTextReply<T>(field, text as string, rest as Partial<T>);
  }

  /** What the service sends: the text as the body, the rest in the header. */
  toMessage(): { data: string; headers: MsgHdrs } {
    const headers = natsHeaders();
    headers.set(JSON_TEXT_REPLY_HEADER, JSON.stringify({ field: this.field, rest: this.rest }));
    return { data: this.text, headers };
  }

  /** The reply as the caller sees it. */
  toValue(): T {
    return { ...this.rest, [this.field]: this.text } as T;
  }
}

/** The reply object carried by `message` if it is a {@link JsonTextReply}, else undefined. */
export function readJsonTextReply(message: Msg): unknown {
  const header = message.headers?.get(JSON_TEXT_REPLY_HEADER);
  if (!header) return undefined;
  const { field, rest } = JSON.parse(header) as { field: string; rest: Record<string, unknown> };
  return { ...rest, [field]: message.string() };
}
