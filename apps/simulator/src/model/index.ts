/**
 * The simulator's physics: pure, clock-free functions of a site state (no I/O, no
 * `Date.now()`, no `Math.random`). See site.ts for the model overview.
 */
export * from './alarms';
export * from './load';
export * from './ocv';
export * from './profiles';
export * from './random';
export * from './schedule';
export * from './settings';
export * from './site';
export * from './solar';
export * from './time';
export * from './weather';
