const path = require('node:path');
const preset = require('../../jest.preset.cjs')(__dirname);

// The shared preset maps the libs and the other apps to their sources; the local chain is mapped
// here the same way, so these tests never run against a stale build of it.
module.exports = {
  ...preset,
  moduleNameMapper: {
    '^@appcat/local-chain$': path.join(__dirname, '../local-chain/src/index.ts'),
    ...preset.moduleNameMapper,
  },
};
