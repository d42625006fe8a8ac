import { runUpstreamCheckCli } from './cli.js';

// `npm run upstream:check`: see cli.ts and docs/upstream.md.
runUpstreamCheckCli(process.argv.slice(2), process.env, {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
}).then(
  (code) => (process.exitCode = code),
  (error: unknown) => {
    process.stderr.write(`upstream check failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 2;
  },
);
