export * from './config.js';
export * from './gateway-app.js';
export { CREDITS_REMAINING_HEADER } from './priced/priced-routes.registrar.js';
export { X402Checkout } from './payment/x402-checkout.js';
