/** Header carrying the request id from the gateway through NATS into payments and catalog. */
export const REQUEST_ID_HEADER = 'x-request-id';

/** A request id the gateway passes on (the caller's, when it is this safe, else a UUID): also in payloads. */
export const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Header of a batch request carrying each item's trace context, in item order: a JSON array of header
 * objects (`{"traceparent": …}`, W3C trace context; `{}` for an item outside any trace). A lone request
 * carries its context in the standard `traceparent` / `tracestate` headers instead.
 */
export const BATCH_ITEM_TRACE_HEADER = 'appcat-batch-item-trace';
