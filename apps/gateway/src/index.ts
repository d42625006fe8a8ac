export * from './config.js';
export * from './gateway-app.js';
export { CREDITS_REMAINING_HEADER } from './priced/priced-routes.registrar.js';
export { X402PaymentService } from './payment/x402-payment.service.js';
