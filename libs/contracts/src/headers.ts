/** Header carrying the request id from the gateway through NATS into payments and catalog. */
export const REQUEST_ID_HEADER = 'x-request-id';

/** A request id the gateway passes on (the caller's, when it is this safe, else a UUID): also in payloads. */
export const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;
