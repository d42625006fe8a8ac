import type { FaultSpec } from '../control/fault-book.js';
import type { RequestHook } from '../control/request-fault.js';

/** Every Google Play request the emulator serves. */
const PLAY = { pathPattern: '^/(store/|_/PlayStoreUi/)' };

/**
 * How Google Play blocks a scraper, as faults to inject (`addFault`, or `POST /__emulator/faults`):
 * each must be a failure of the source to the catalog (breaker, budget, not cached, not charged).
 */
export const PLAY_BLOCKS = {
  /** Too many requests. */
  throttled: { match: PLAY, status: 429, retryAfter: 30 },
  /** The "unusual traffic" page with a reCAPTCHA. */
  captcha: {
    match: PLAY,
    status: 503,
    headers: { 'content-type': 'text/html; charset=utf-8' },
    body:
      '<html><head><title>https://play.google.com/store/apps</title></head><body><div>Our systems have detected ' +
      'unusual traffic from your computer network.</div><script src="https://www.google.com/recaptcha/api.js"></script></body></html>',
  },
  /** An error page served with 200. */
  gatewayError: {
    match: PLAY,
    status: 200,
    headers: { 'content-type': 'text/html; charset=utf-8' },
    body: '<!doctype html><html><body><div id="error">PlayGatewayError</div></body></html>',
  },
  /** Sent to the consent wall (EU visitors without a consent cookie). */
  consent: {
    match: PLAY,
    status: 302,
    headers: {
      location: 'https://consent.google.com/ml?continue=https://play.google.com/store/apps&gl=DE&hl=de&pc=p&src=1',
    },
  },
} as const satisfies Record<string, FaultSpec>;

/**
 * Answers the reviews rpc (batchexecute `UsvDTd`) with an empty page, as Google Play does when it does
 * not mean it (`setRequestHook`): for an app its details show rated, a failure of the source.
 */
export const playEmptyReviews: RequestHook = (request) =>
  request.body?.includes('UsvDTd')
    ? {
        response: {
          status: 200,
          body: `)]}'\n\n${JSON.stringify([['wrb.fr', 'UsvDTd', '[]', null, null, null, 'generic']])}`,
        },
      }
    : undefined;
