import type { WireError } from './errors.js';

/**
 * Coalesced requests: the gateway gathers the requests for one subject made in one event-loop turn and
 * sends them as one message to that subject's batch subject ({@link BatchSubject}). The service
 * handles every item as it would handle it alone and answers one result per item, in order; an item's
 * failure is that item's own and never fails the others.
 */
export interface BatchRequest<T> {
  items: T[];
}

export type BatchItemResult<R> = { ok: true; value: R } | { ok: false; error: WireError };

/**
 * A reply larger than one NATS message (`max_payload`) goes in several, in order: Nest reply packets
 * whose `response` is a BatchReply of the next run of results, every one but the last marked
 * `isDisposed: false`; the caller joins them. A result too large for any message is sent as that
 * item's failure (REPLY_TOO_LARGE), so the caller falls back for it alone (a peek's failure is a miss).
 */
export interface BatchReply<R> {
  /** One per item of the request, in the same order. */
  results: BatchItemResult<R>[];
}

/** Most items a service accepts in one batch request; the gateway's own bound must not exceed it. */
export const MAX_BATCH_ITEMS = 256;
