import type { CatalogueUrls } from '../apple-urls.js';

/**
 * One way into Apple's catalogue (JSON:API): amp-api with the page's bearer token, or the site's
 * same-origin path with a browser's headers. Sources built on a door work through either.
 */
export interface CatalogueDoor {
  /** The source name the door gives its sources: `amp-api` or `catalogue`. */
  readonly name: 'amp-api' | 'catalogue';
  readonly urls: CatalogueUrls;
  /** The document at `url`; undefined for a 404. */
  document(url: URL): Promise<Record<string, unknown> | undefined>;
}
