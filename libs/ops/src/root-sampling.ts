/**
 * Where a call enters, the sampler decides before the SDK makes anything. Part of the tracing SDK
 * (tracing-sdk.ts): loaded only with tracing on.
 *
 * Why: the SDK's `Tracer.startSpan` does the same work for a root it then drops as for one it keeps
 * (its attributes sanitized, a span id, a non-recording span, its metrics), and at 10 % sampling nine
 * calls in ten are dropped there: in the gateway's profiles, about a sixth of what tracing cost it, and
 * most of the SDK's share. Here a root's trace id is drawn and the configured sampler asked first;
 * only a root it keeps is made, by the SDK, with that trace id (so the SDK's own decision, made again
 * on it, is the same one: every standard sampler decides by the trace id alone).
 */
import type { Link, Tracer } from '@opentelemetry/api';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  type IdGenerator,
  ParentBasedSampler,
  RandomIdGenerator,
  type Sampler,
  SamplingDecision,
  TraceIdRatioBasedSampler,
} from '@opentelemetry/sdk-trace';
import type { MakeRootSpan } from './tracing.js';
import type { TracingConfig } from './tracing-config.js';

/** The sampler OTEL_TRACES_SAMPLER names, as the SDK would build it from the same settings. */
export function configuredSampler(config: Pick<TracingConfig, 'sampler' | 'samplerRatio'>): Sampler {
  switch (config.sampler) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return new TraceIdRatioBasedSampler(config.samplerRatio);
    case 'parentbased_always_on':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(config.samplerRatio) });
  }
}

/**
 * Random ids, except that the next trace id may be set beforehand (`stage`): the one the sampler
 * decided on. Invariant: a staged id is used by the very next root the SDK makes, or cleared.
 */
export class StagedTraceIds implements IdGenerator {
  private readonly random = new RandomIdGenerator();
  private staged: string | undefined;

  /** A new random trace id, to decide on; `stage` it for the root about to be made. */
  draw(): string {
    return this.random.generateTraceId();
  }

  stage(traceId: string | undefined): void {
    this.staged = traceId;
  }

  generateTraceId(): string {
    const staged = this.staged;
    if (staged === undefined) return this.random.generateTraceId();
    this.staged = undefined;
    return staged;
  }

  generateSpanId(): string {
    return this.random.generateSpanId();
  }
}

/** What a root without links is sampled with: one array, not one per call. */
const NO_LINKS: Link[] = [];

/** Roots decided by `sampler` (the provider's own) before `tracer`, made with `ids`, is asked for them. */
export function rootSpanMaker(tracer: Tracer, sampler: Sampler, ids: StagedTraceIds): MakeRootSpan {
  return (name, options, parent) => {
    const traceId = ids.draw();
    const { decision } = sampler.shouldSample(
      parent,
      traceId,
      name,
      options.kind,
      options.attributes,
      options.links ?? NO_LINKS,
    );
    if (decision !== SamplingDecision.RECORD_AND_SAMPLED) return undefined;
    ids.stage(traceId);
    try {
      return tracer.startSpan(name, options, parent);
    } finally {
      // A root the SDK did not make (tracing suppressed) leaves its id staged: no later root takes it.
      ids.stage(undefined);
    }
  };
}
