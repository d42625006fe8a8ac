const preset = require('../../jest.preset.cjs')(__dirname);

module.exports = { ...preset, testTimeout: 30_000 };
