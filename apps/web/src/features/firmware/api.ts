/**
 * Firmware package and upgrade batch calls (issue 16; contract `firmwareEndpoints`,
 * `upgradeEndpoints`, shapes and rules in api/firmware.ts). Every function resolves with the
 * answer's `data` or rejects with `ApiError` after the client's spec §8 handling.
 *
 * Calls that change something show the server's msg on a refusal (`errorText: 'server'`): its
 * texts carry what the catalogue's cannot — the version that exists (7032), the size limit
 * (7031), the state that forbids the action (7035, 7038), the device and why (7039). The upload
 * shows nothing itself: its dialog shows the refusal in place ({@link uploadPackage}).
 */
import {
  type EndpointRequest,
  type EndpointResponse,
  type FirmwarePackage,
  type FirmwareUploadFields,
  firmwareEndpoints,
  firmwareUploadQuery,
  type Page,
  type UpgradeBatchRow,
  type UpgradeDetail,
  upgradeEndpoints,
} from '@ess/contract';
import { request, requestUpload } from '@/shared/api/client';

export type FirmwareQuery = Omit<EndpointRequest<typeof firmwareEndpoints.pageList>, 'userInfo'>;
export type UpgradeQuery = Omit<EndpointRequest<typeof upgradeEndpoints.pageList>, 'userInfo'>;
export type CandidatesQuery = Omit<EndpointRequest<typeof upgradeEndpoints.candidates>, 'userInfo'>;
export type CandidatesAnswer = EndpointResponse<typeof upgradeEndpoints.candidates>;
export type CreateBatch = Omit<EndpointRequest<typeof upgradeEndpoints.create>, 'userInfo'>;

/** `firmware/pageList`: packages of the caller's companies and the platform's, newest first. */
export function fetchPackages(q: FirmwareQuery): Promise<Page<FirmwarePackage>> {
  return request(firmwareEndpoints.pageList, q);
}

/** `firmware/detail`: one package. Errors: 7030. */
export function fetchPackage(id: number): Promise<FirmwarePackage> {
  return request(firmwareEndpoints.detail, { id });
}

/**
 * `firmware/upload`: `file` streamed as the body, `fields` in the query string; `onProgress`
 * gets the bytes sent so far and the total; `signal` aborts (the server stores nothing of a
 * body cut short). Shows nothing on a refusal (the dialog does). Errors: -100 a field (msg names
 * it), 7031 too large, 7032 the version exists, 7033 SHA-256 differs, 7034 cut short or empty.
 */
export function uploadPackage(
  fields: FirmwareUploadFields,
  file: Blob,
  options: { signal?: AbortSignal; onProgress?: (sent: number, total: number) => void } = {},
): Promise<FirmwarePackage> {
  return requestUpload(firmwareEndpoints.upload, firmwareUploadQuery(fields), file, {
    ...options,
    errorText: 'none',
  });
}

/** `firmware/publish` (unused or disabled → published). Errors: 7030, 7035. */
export function publishPackage(id: number): Promise<FirmwarePackage> {
  return request(firmwareEndpoints.publish, { id }, { errorText: 'server' });
}

/** `firmware/disable` (published → disabled). Errors: 7030, 7035. */
export function disablePackage(id: number): Promise<FirmwarePackage> {
  return request(firmwareEndpoints.disable, { id }, { errorText: 'server' });
}

/** `firmware/delete`: the package and its file. Errors: 7030, 7036 a batch names it. */
export function deletePackage(id: number): Promise<unknown> {
  return request(firmwareEndpoints.delete, { id }, { errorText: 'server' });
}

/** `upgrade/candidates`: devices the package could go to, each with why it is excluded. Errors: 3061. */
export function fetchCandidates(q: CandidatesQuery): Promise<CandidatesAnswer> {
  return request(upgradeEndpoints.candidates, q, { errorText: 'server' });
}

/** `upgrade/create`: starts a batch; answers its id. Errors: -100, 3061, 7039, 7042. */
export function createBatch(body: CreateBatch): Promise<{ id: number }> {
  return request(upgradeEndpoints.create, body, { errorText: 'server' });
}

/** `upgrade/pageList`: batches, newest first, with device counts per state. */
export function fetchBatches(q: UpgradeQuery): Promise<Page<UpgradeBatchRow>> {
  return request(upgradeEndpoints.pageList, q);
}

/** `upgrade/detail`: one batch with every device and its timeline. Errors: 7037. */
export function fetchBatch(id: number): Promise<UpgradeDetail> {
  return request(upgradeEndpoints.detail, { id }, { errorText: 'none' });
}

/** `upgrade/retry`: failed devices (all, or `deviceIds`) wait again. Errors: 7037, 7038, 7040, 3061. */
export function retryDevices(id: number, deviceIds?: number[]): Promise<{ count: number }> {
  return request(upgradeEndpoints.retry, deviceIds ? { id, deviceIds } : { id }, { errorText: 'server' });
}

/** `upgrade/cancel`: devices not started (all waiting, or `deviceIds`). Errors: 7037, 7038, 7041. */
export function cancelDevices(id: number, deviceIds?: number[]): Promise<{ count: number }> {
  return request(upgradeEndpoints.cancel, deviceIds ? { id, deviceIds } : { id }, { errorText: 'server' });
}

/** `upgrade/pause`: nothing new starts. Errors: 7037, 7038. */
export function pauseBatch(id: number): Promise<UpgradeBatchRow> {
  return request(upgradeEndpoints.pause, { id }, { errorText: 'server' });
}

/** `upgrade/resume`: a paused batch goes on (also one the failure rate paused). Errors: 7037, 7038. */
export function resumeBatch(id: number): Promise<UpgradeBatchRow> {
  return request(upgradeEndpoints.resume, { id }, { errorText: 'server' });
}

/** TanStack Query keys of the firmware screens. */
export const firmwareKeys = {
  packagesAll: ['firmware', 'packages'] as const,
  packages: (q: FirmwareQuery) => ['firmware', 'packages', q] as const,
  published: ['firmware', 'packages', 'published'] as const,
  candidates: (q: CandidatesQuery) => ['firmware', 'candidates', q] as const,
  batchesAll: ['firmware', 'batches'] as const,
  batches: (q: UpgradeQuery) => ['firmware', 'batches', q] as const,
  batch: (id: number) => ['firmware', 'batch', id] as const,
};
