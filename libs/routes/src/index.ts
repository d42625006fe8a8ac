export * from './countries.js';
export * from './dtos.js';
export * from './param-rules.js';
export * from './route-table.js';
export * from './validate-route-input.js';
export * from './param-schemas.js';
