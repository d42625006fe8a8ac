/**
 * The sampler the standard settings name, built from the validated settings: our span recorder
 * (recorded-span.ts), which makes every span of a traced service, asks it. Part of the tracing
 * SDK (tracing-sdk.ts): loaded only with tracing on.
 */
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  ParentBasedSampler,
  type Sampler,
  TraceIdRatioBasedSampler,
} from '@opentelemetry/sdk-trace';
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
