import { ErrorCode } from '@appcat/contracts';
import { WireException } from '@appcat/microservice';
import { activeContext, contextWithSpan, endSpan, inContext, startSpan } from '@appcat/ops';
import { isUpstreamFailure, isUpstreamReportedError } from './upstream-failures.js';

/**
 * One way of reading a resource from the store: a URL builder and a parser behind `load`, and the
 * rule that tells an answer it has to distrust (an empty page the store obviously has).
 */
export interface Source<A, T> {
  readonly name: string;
  /** The answer; undefined when the store says the item does not exist. Throws typed upstream failures. */
  load(args: A): Promise<T | undefined>;
  /** Why this answer cannot be believed, or undefined when it can (rules may read other cached resources). */
  implausible?(answer: T | undefined, args: A): Promise<string | undefined>;
  /**
   * Whether this answer stands only once a later source agrees (an empty search for a term the store
   * may know): the next source that answers decides; with no later source it stands as it is.
   */
  tentative?(answer: T | undefined): boolean;
}

/** What became of one source's try: its answer was used, was not believed, or it failed. */
export type SourceOutcome = 'ok' | 'implausible' | 'unconfirmed' | 'failed';

/** Told about every source tried (the catalog counts them in appcat_upstream_source_total). */
export type SourceObserver = (route: string, source: string, outcome: SourceOutcome) => void;

/** A source this request cannot be served by (the app page has one page of reviews): skipped, and said so. */
export function notServed(what: string): WireException {
  return new WireException(ErrorCode.UpstreamBadResponse, `not served by this source: ${what}`);
}

/**
 * The sources of one route, tried in the configured order until one gives an answer it can believe.
 * A failure or an implausible answer moves on to the next; when none is left the call fails with a
 * typed upstream error naming every source and why, so an implausible answer is never returned, and
 * the cache keeps it neither as data nor as more than a failure memo.
 */
export class SourceChain<A, T> {
  constructor(
    readonly route: string,
    readonly sources: readonly Source<A, T>[],
    private readonly observe: SourceObserver = () => undefined,
  ) {}

  /** @param noteSource told the name of the source whose answer is returned. */
  async load(args: A, noteSource?: (name: string) => void): Promise<T | undefined> {
    const tried: string[] = [];
    const codes = new Set<string>();
    // Each try's span is a child of the caller's (the cache read's), also after the first try's awaits.
    const parent = activeContext();
    for (const [index, source] of this.sources.entries()) {
      let why: string | undefined;
      let answer: T | undefined;
      // With tracing on, each try is a span (its requests inside it), ended with the outcome observed.
      const attributes = { 'appcat.upstream.route': this.route, 'appcat.upstream.source': source.name };
      const span = startSpan('catalog.upstream.source', attributes, { parent });
      const observe = (outcome: SourceOutcome) => {
        if (span) endSpan(span, outcome);
        this.observe(this.route, source.name, outcome);
      };
      try {
        answer = await inContext(span && contextWithSpan(span, parent), () => source.load(args));
        why = await source.implausible?.(answer, args);
      } catch (error) {
        // Apple's own error about the request (an invalid lang) is its answer, not this source failing.
        if (isUpstreamReportedError(error) || !isUpstreamFailure(error)) {
          if (span) endSpan(span, (error as { code?: string }).code ?? 'error');
          throw error;
        }
        observe('failed');
        // A route with one source fails as that source did, in its own words.
        if (this.sources.length === 1) throw error;
        tried.push(`${source.name}: ${error.message}`);
        codes.add(error.code);
        continue;
      }
      if (why === undefined && source.tentative?.(answer) && index < this.sources.length - 1) {
        observe('unconfirmed');
        tried.push(`${source.name}: an empty answer no later source confirmed`);
        continue;
      }
      if (why === undefined) {
        observe('ok');
        noteSource?.(source.name);
        return answer;
      }
      observe('implausible');
      tried.push(`${source.name}: ${why}`);
      codes.add(ErrorCode.UpstreamBadResponse);
    }
    // One cause keeps its code (all throttled: UPSTREAM_THROTTLED); mixed causes are the answers we could not use.
    const code = codes.size === 1 ? [...codes][0] : ErrorCode.UpstreamBadResponse;
    throw new WireException(code as ErrorCode, `no source could answer ${this.route} (${tried.join('; ')})`);
  }
}
