/**
 * Errors feature: the 404 page (lazy, './NotFoundPage') and the missing-view notice.
 */
export { ViewNotFound } from './ViewNotFound';
