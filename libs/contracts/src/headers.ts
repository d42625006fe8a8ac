/** Header carrying the request id from the gateway through NATS into payments and catalog. */
export const REQUEST_ID_HEADER = 'x-request-id';

/** A request id the gateway passes on (the caller's, when it is this safe, else a UUID): also in payloads. */
export const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Header of a batch request carrying the trace context of its items in a sampled trace: a JSON object,
 * `{"size": <items in the batch>, "traced": {"<item index>": {"traceparent": …}}}` (each item's W3C
 * trace context headers, under its index; an item outside any trace is left out, and a batch with no
 * traced item has no header). A lone request carries its context in the standard `traceparent` /
 * `tracestate` headers instead.
 */
export const BATCH_ITEM_TRACE_HEADER = 'appcat-batch-item-trace';
