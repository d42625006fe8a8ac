import { type INestApplicationContext, Logger, type LoggerService, type LogLevel } from '@nestjs/common';
import { applyHeapGrowthPercent } from './heap-growth.js';
import { createJsonLogger, JsonNestLogger, routeConsoleTo } from './logger.js';
import type { OpsConfig } from './ops-config.js';
import type { TracedLibrary } from './tracing-config.js';

/** What every `createXxxApp(config, options)` takes besides its configuration. */
export interface ServiceAppOptions {
  /** Nest's logger: the JSON logger from main, `false` or a few levels in tests. */
  logger?: LoggerService | LogLevel[] | false;
}

/** One service as its main.ts starts it. */
export interface ServiceMain<Config extends { ops: OpsConfig }, App extends INestApplicationContext> {
  /** On every log line (`service`) and the context of the start-up lines. */
  name: string;
  /** The libraries whose calls the service's traces show (with tracing on). */
  tracedLibraries: readonly TracedLibrary[];
  readConfig(): Config;
  /** Builds the app, initialised but not answering yet (the service's createXxxApp). */
  createApp(config: Config, options: ServiceAppOptions): Promise<App>;
  /** Starts answering; resolves with the ready line, which says where. */
  listen(app: App, config: Config): Promise<string>;
  /** What must hold once the service answers, or start-up fails: resolves with a line to log. */
  startupCheck?(app: App, config: Config): Promise<string>;
}

/**
 * How every service starts: reads and checks its configuration, sets the heap growth, starts tracing
 * when an OTLP endpoint is set (the SDK is imported only then), makes Nest's and the console's output
 * JSON lines carrying the service's name, builds the app, lets SIGTERM close it cleanly, starts
 * answering and logs the ready line. A failure anywhere on the way is logged as one line with its
 * message, and the process exits 1.
 *
 * `createApp` must import the service's code itself (`await import('./xxx-app.js')`): tracing
 * instruments ES modules as they are imported, so they must be imported after it starts.
 */
export async function runService<Config extends { ops: OpsConfig }, App extends INestApplicationContext>(
  main: ServiceMain<Config, App>,
): Promise<void> {
  const logger = new Logger(main.name);
  try {
    const config = main.readConfig();
    applyHeapGrowthPercent(config.ops.heapGrowthPercent);
    if (config.ops.tracing.enabled) {
      const { startTracing } = await import('./tracing-sdk.js');
      await startTracing(main.name, config.ops.tracing, main.tracedLibraries);
    }
    const json = new JsonNestLogger(createJsonLogger(main.name, config.ops.logLevel));
    Logger.overrideLogger(json);
    routeConsoleTo(json);
    const app = await main.createApp(config, { logger: json });
    app.enableShutdownHooks();
    logger.log(await main.listen(app, config));
    if (main.startupCheck) logger.log(await main.startupCheck(app, config));
  } catch (error) {
    logger.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  }
}
