/** Header carrying the request id from the gateway through NATS into payments and catalog. */
export const REQUEST_ID_HEADER = 'x-request-id';
