import {
  type BatchItemResult,
  type BatchReply,
  ErrorCode,
  MAX_BATCH_ITEMS,
  type WireError,
  WirePayloadError,
} from '@appcat/contracts';
import { inBatchItemContext } from './nats-trace.js';
import { WireException } from './wire-exception.js';

/**
 * What a batch handler returns: its {@link BatchReply}, which DrainingNatsServer sends in as many NATS
 * messages as its size needs (see `batch.ts` in libs/contracts), and NatsRpcClient puts back together.
 */
export class BatchResults<R> {
  constructor(readonly results: BatchItemResult<R>[]) {}
}

/**
 * A batch request's items, each handled by `handle` as it would be alone: one result per item, in
 * order, an item's failure its own (its WireError, or INTERNAL for anything else), each in its caller's
 * trace with tracing on. Throws INVALID_ARGUMENT unless `request` holds 1 to {@link MAX_BATCH_ITEMS} items.
 */
export function handleBatchItems<R>(
  request: unknown,
  handle: (item: unknown) => Promise<R>,
): Promise<BatchItemResult<R>[]> {
  const items = (request as { items?: unknown } | null)?.items;
  if (!Array.isArray(items) || items.length === 0 || items.length > MAX_BATCH_ITEMS)
    throw new WireException(ErrorCode.InvalidArgument, `items must be an array of 1 to ${MAX_BATCH_ITEMS} requests`);
  return Promise.all(
    items.map((item, index) =>
      inBatchItemContext(request, index, () => handle(item)).then(
        (value): BatchItemResult<R> => ({ ok: true, value }),
        (error: unknown): BatchItemResult<R> => ({ ok: false, error: batchItemError(error) }),
      ),
    ),
  );
}

/** What a failed item reports: a WireException's or a refused payload's own error, anything else as INTERNAL (never its text). */
function batchItemError(error: unknown): WireError {
  if (error instanceof WireException) return error.getError() as WireError;
  if (error instanceof WirePayloadError) return { code: error.code, message: error.message };
  return { code: ErrorCode.Internal, message: 'internal error' };
}

const PART_OPEN = '{"results":[';
const PART_CLOSE = ']}';
const EMPTY_PART_BYTES = PART_OPEN.length + PART_CLOSE.length;

/** The result sent instead of one that no message could carry: that item's own failure. */
function tooLarge(bytes: number, maxBytes: number): BatchItemResult<never> {
  return {
    ok: false,
    error: {
      code: ErrorCode.ReplyTooLarge,
      message: `answer too large to send (${bytes} bytes, at most ${maxBytes})`,
    },
  };
}

/**
 * The JSON texts of a batch reply's parts, in order, each a {@link BatchReply} of the next run of
 * results and at most `maxBytes` long; one part when everything fits. Each result is serialised once.
 */
export function batchReplyParts(results: readonly BatchItemResult<unknown>[], maxBytes: number): string[] {
  const parts: string[] = [];
  let items: string[] = [];
  let bytes = EMPTY_PART_BYTES;
  for (const result of results) {
    let text = JSON.stringify(result);
    let size = Buffer.byteLength(text);
    if (EMPTY_PART_BYTES + size > maxBytes) {
      text = JSON.stringify(tooLarge(size, maxBytes - EMPTY_PART_BYTES));
      size = Buffer.byteLength(text);
    }
    if (items.length > 0 && bytes + 1 + size > maxBytes) {
      parts.push(PART_OPEN + items.join(',') + PART_CLOSE);
      items = [];
      bytes = EMPTY_PART_BYTES;
    }
    bytes += (items.length > 0 ? 1 : 0) + size;
    items.push(text);
  }
  parts.push(PART_OPEN + items.join(',') + PART_CLOSE);
  return parts;
}

/** A batch reply received in parts, as one; throws if a part is not a {@link BatchReply}. */
export function joinBatchReplyParts(parts: readonly unknown[]): BatchReply<unknown> {
  const results: BatchItemResult<unknown>[] = [];
  for (const part of parts) {
    const partResults = (part as { results?: unknown } | null)?.results;
    if (!Array.isArray(partResults)) throw new TypeError('a reply part is not a batch reply');
    for (const result of partResults) results.push(result as BatchItemResult<unknown>);
  }
  return { results };
}
