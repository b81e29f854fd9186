/**
 * Route table: records, constant routes, menu → routes, lookups and the store (spec §2).
 */
export * from './build';
export * from './constant';
export * from './lookup';
export * from './search-params';
export * from './store';
export * from './types';
