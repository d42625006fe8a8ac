import type { ReviewSort } from '@appcat/contracts';
import type { Review } from '../store/store-adapter.js';
import type { UpstreamHttpClient } from '../upstream/upstream-http-client.js';
import {
  badResponse,
  expectSuccess,
  isRecord,
  parseJsonBody,
  throttled,
  upstreamReportedError,
} from '../upstream/upstream-failures.js';
import { ITUNES_UPSTREAM } from './apple-upstreams.js';
import type { AppleUrls, FeedForm } from './apple-urls.js';
import { type DriftNote, feedLastPage, parseReviewsFeed } from './reviews-feed.js';

/** A record of iTunes Search or Lookup, passed through as it is. */
export type ItunesRecord = Record<string, unknown>;

export interface ItunesResults {
  resultCount: number;
  results: ItunesRecord[];
}

/** iTunes Search, Lookup and the customer reviews feed. */
export class ItunesApi {
  constructor(
    private readonly http: UpstreamHttpClient,
    private readonly urls: AppleUrls,
    private readonly note: DriftNote = () => undefined,
  ) {}

  search(term: string, country: string, lang: string | undefined, limit: number): Promise<ItunesResults> {
    return this.getResults(this.urls.search(term, country, lang, limit));
  }

  /** @param admitted a rate-limiter token was already taken (see {@link ItunesApi.admit}). */
  lookup(
    key: 'id' | 'bundleId',
    values: string[],
    options: { country?: string; lang?: string; limit?: number },
    admitted = false,
  ): Promise<ItunesResults> {
    return this.getResults(this.urls.lookup(key, values, options), admitted);
  }

  /** Waits for a rate-limiter token for a lookup still gathering ids. */
  async admit(): Promise<void> {
    await this.http.admit?.(ITUNES_UPSTREAM, this.urls.lookup('id', [], {}));
  }

  /** One page of the reviews feed in one of its URL forms, with the last page its links name. */
  async reviewsPage(
    country: string,
    trackId: string,
    page: number,
    sort: ReviewSort,
    form: FeedForm = 'page-first',
  ): Promise<{ reviews: Review[]; lastPage?: number }> {
    const url = this.urls.reviewsFeed(country, trackId, page, sort, form);
    const response = await this.http.get({ url, upstream: ITUNES_UPSTREAM, headers: { accept: 'application/json' } });
    expectSuccess(response, url.host);
    const reviews = parseReviewsFeed(response.body, trackId, url.host, this.note);
    return { reviews, lastPage: reviews.length === 0 ? feedLastPage(response.body) : undefined };
  }

  /**
   * Search and Lookup answer `{resultCount, results}`, or Apple's `{errorMessage}` (HTTP 400) for a
   * parameter it rejects, such as an unknown lang.
   */
  private async getResults(url: URL, admitted = false): Promise<ItunesResults> {
    const response = await this.http.get({ url, upstream: ITUNES_UPSTREAM, admitted });
    const slowDown = throttled(response, url.host);
    if (slowDown) throw slowDown;
    let body: unknown;
    try {
      body = parseJsonBody(response, url.host);
    } catch (error) {
      if (response.status >= 200 && response.status <= 299) throw error;
      body = undefined;
    }
    if (isRecord(body) && typeof body.errorMessage === 'string') {
      throw upstreamReportedError(body.errorMessage, url.host);
    }
    expectSuccess(response, url.host);
    if (!isRecord(body) || !Array.isArray(body.results)) throw badResponse('JSON without results', url.host);
    const results = body.results.filter(isRecord);
    return { resultCount: results.length, results };
  }
}
