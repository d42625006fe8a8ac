/** Injection token of the {@link PaymentsConfig} the module was built with. */
export const PAYMENTS_CONFIG = Symbol('PAYMENTS_CONFIG');
