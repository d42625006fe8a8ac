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

export interface BatchReply<R> {
  /** One per item of the request, in the same order. */
  results: BatchItemResult<R>[];
}

/** Most items a service accepts in one batch request; the gateway's own bound must not exceed it. */
export const MAX_BATCH_ITEMS = 256;
