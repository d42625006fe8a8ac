module.exports = { ...require('../../jest.preset.cjs')(__dirname), testTimeout: 120_000 };
