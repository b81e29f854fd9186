/**
 * @ess/contract: what the console and the server agree on. Nothing here imports app code.
 */

export * from './api/alarm';
export * from './api/audit';
export * from './api/dashboard';
export * from './api/dead-letter';
export * from './api/debug';
export * from './api/employee';
export * from './api/envelope';
export * from './api/export';
export * from './api/firmware';
export * from './api/job';
export * from './api/live';
export * from './api/menu';
export * from './api/monitor';
export * from './api/organisation';
export * from './api/params';
export * from './api/primitives';
export * from './api/registry';
export * from './api/screen';
export * from './api/site-monitor';
export * from './api/time-range';
export * from './api/tou';
export * from './api/user';
export * from './audit-vocabulary';
export * from './device/device-commands';
export * from './device/modbus';
export * from './device/ota';
export * from './device/points';
export * from './device/protocol';
export * from './device/site-figures';
export * from './endpoints';
export * from './errors';
export * from './lang';
export * from './local-time';
export * from './menu-tree';
export * from './params/messages';
export * from './params/schema';
export * from './params/validate';
export * from './permissions';
export * from './tou/arbitrage';
export * from './tou/resolve';
export * from './tou/rules';
export * from './tou/scheme';
export * from './tou/templates';
export * from './validation';
