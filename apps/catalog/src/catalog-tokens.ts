/** Injection token of the {@link CatalogConfig} the module was built with. */
export const CATALOG_CONFIG = Symbol('CATALOG_CONFIG');

/** The fetch budget's settings (CATALOG_MAX_IN_FLIGHT and its wait), FetchBudget's constructor argument. */
export const FETCH_BUDGET_SETTINGS = Symbol('FETCH_BUDGET_SETTINGS');
