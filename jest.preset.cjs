// Shared jest settings. NestJS 12 is ESM-only, so jest runs in its native ESM mode
// (node --experimental-vm-modules) and ts-jest emits ESM. ts-jest compiles each file on its own
// (isolatedModules; the `build` target type-checks), and workspace libraries resolve to their
// sources so tests never need a prior build.
const path = require('node:path');

/** @param {string} projectDir */
module.exports = function jestPreset(projectDir) {
  const cluster = process.env.TEST_CLUSTER === '1';
  return {
    rootDir: projectDir,
    testEnvironment: 'node',
    // A guard against a hung test, not a measure of speed: jest's own 5 s failed suites that start
    // private servers when a loaded 2-core machine ran other projects' tests beside them.
    testTimeout: 60_000,
    // A test that fails mid-way can leave a server or connection open (its own clean-up never ran); jest
    // would then wait for it forever after the last test and stall the whole run. The results are
    // reported first, so only that wait is cut.
    forceExit: true,
    extensionsToTreatAsEsm: ['.ts'],
    transform: {
      '^.+\\.ts$': ['ts-jest', { tsconfig: path.join(projectDir, 'tsconfig.spec.json'), useESM: true }],
    },
    moduleFileExtensions: ['ts', 'js', 'json'],
    moduleNameMapper: {
      '^@appcat/(contracts|config|routes|microservice|ops|redis|testing|api-docs)$': path.join(__dirname, 'libs/$1/src/index.ts'),
      // Apps export their factories (createXxxApp) for the end-to-end suite; services never import each other.
      '^@appcat/(gateway|payments|catalog)$': path.join(__dirname, 'apps/$1/src/index.ts'),
      '^@appcat/(store-emulator|local-chain|facilitator|solana-ledger)$': path.join(__dirname, 'tools/$1/src/index.ts'),
      '^(\\.{1,2}/.*)\\.js$': '$1',
    },
    // The Redis Cluster / NATS cluster suites (test/cluster) start a dozen servers each: they are the
    // project's `test-cluster` target (TEST_CLUSTER=1), which `npm test` runs after the other projects'
    // tests, one project at a time, as it does the end-to-end and chaos suites.
    testMatch: cluster ? ['<rootDir>/test/cluster/**/*.spec.ts'] : ['<rootDir>/src/**/*.spec.ts', '<rootDir>/test/**/*.spec.ts'],
    testPathIgnorePatterns: cluster ? ['/node_modules/'] : ['/node_modules/', '/test/cluster/'],
    reporters: ['default', [path.join(__dirname, 'scripts/lib/jest-summary-reporter.cjs'), { run: cluster ? 'cluster' : '' }]],
  };
};
