const preset = require('../../jest.preset.cjs')(__dirname);

// Suites start anvil (and, from sources, may compile the contracts first); on a loaded machine that
// outlasts jest's 5 s default for a hook.
module.exports = { ...preset, testTimeout: 30_000 };
