export * from './catalog.js';
export * from './errors.js';
export * from './money.js';
export * from './payments.js';
export * from './subjects.js';
export * from './headers.js';
export * from './api-key.js';
export * from './x402.js';
