// Rendering the overlays and type-checking them against the Kubernetes API types takes a few seconds.
module.exports = { ...require('../../jest.preset.cjs')(__dirname), testTimeout: 60_000 };
