const path = require('node:path');
const preset = require('../../jest.preset.cjs')(__dirname);

module.exports = {
  ...preset,
  // Suites start anvil; on a loaded machine that outlasts jest's 5 s default for a hook.
  testTimeout: 30_000,
  // The local chain from its sources, like the libs, so these tests never use a stale build of it.
  moduleNameMapper: {
    '^@appcat/local-chain$': path.join(__dirname, '../local-chain/src/index.ts'),
    ...preset.moduleNameMapper,
  },
};
