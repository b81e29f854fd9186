/**
 * Firmware packages and upgrade batches (issue 16): `endpoints.firmware.*` and
 * `endpoints.upgrade.*`. Part of the endpoint table (../endpoints.ts); see define.ts for the
 * fields and api/firmware.ts for the shapes and rules.
 *
 * `firmware.upload` is the table's one streamed upload (`upload` set): `POST` with the file as
 * an `application/octet-stream` body and the package's fields in the query string
 * (`firmwareUploadQuery`). The device download (`GET /ota/<token>`, HTTP Range) is not a call
 * of this table: devices hold no session (docs/device-protocol.md "OTA").
 */
import {
  firmwareIdRequest,
  firmwarePackageResponse,
  firmwarePageListRequest,
  firmwarePageListResponse,
  firmwareUploadRequest,
  upgradeBatchResponse,
  upgradeCancelRequest,
  upgradeCandidatesRequest,
  upgradeCandidatesResponse,
  upgradeCountResponse,
  upgradeCreateRequest,
  upgradeDetailResponse,
  upgradeIdRequest,
  upgradePageListRequest,
  upgradePageListResponse,
  upgradeRetryRequest,
} from '../api/firmware';
import { createdIdResponse, nullResponse } from '../api/primitives';
import { FIRMWARE_MAX_BYTES } from '../device/ota';
import { Perm } from '../permissions';
import { defineEndpoint } from './define';

/** MIME type of a package upload's body. */
export const FIRMWARE_UPLOAD_MIME = 'application/octet-stream';

export const firmwareEndpoints = {
  pageList: defineEndpoint({
    path: '/api-bms/firmware/pageList',
    request: firmwarePageListRequest,
    response: firmwarePageListResponse,
    access: { permission: Perm.firmwarePackageList },
    summary: 'Firmware packages of the caller’s companies and the platform’s, newest upload first',
    tags: ['firmware'],
  }),
  detail: defineEndpoint({
    path: '/api-bms/firmware/detail',
    request: firmwareIdRequest,
    response: firmwarePackageResponse,
    access: { permission: Perm.firmwarePackageList },
    summary: 'One firmware package. Errors: 7030',
    tags: ['firmware'],
  }),
  upload: defineEndpoint({
    path: '/api-bms/firmware/upload',
    request: firmwareUploadRequest,
    response: firmwarePackageResponse,
    access: { permission: Perm.firmwarePackageUpload },
    audit: { action: 'firmware.upload', targetType: 'firmware_package' },
    summary:
      'Upload a firmware package: the file is the body (application/octet-stream, streamed, ≤ 256 MiB), its fields the query string; stored as `unused`',
    description:
      'The server computes SHA-256 and size while the body streams into the database; nothing is stored unless the whole body arrived and every check passed. Errors: -100 a field (named), 7031 larger than 256 MiB (Content-Length or while streaming), 7032 the version exists for the device type, 7033 the SHA-256 differs from `sha256`, 7034 the upload was cut short or empty.',
    tags: ['firmware'],
    upload: { mime: FIRMWARE_UPLOAD_MIME, maxBytes: FIRMWARE_MAX_BYTES },
  }),
  publish: defineEndpoint({
    path: '/api-bms/firmware/publish',
    request: firmwareIdRequest,
    response: firmwarePackageResponse,
    access: { permission: Perm.firmwarePackagePublish },
    audit: { action: 'firmware.publish', targetType: 'firmware_package' },
    summary: 'Publish a package (unused or disabled → published): it can start upgrades. Errors: 7030, 7035',
    tags: ['firmware'],
  }),
  disable: defineEndpoint({
    path: '/api-bms/firmware/disable',
    request: firmwareIdRequest,
    response: firmwarePackageResponse,
    access: { permission: Perm.firmwarePackagePublish },
    audit: { action: 'firmware.disable', targetType: 'firmware_package' },
    summary:
      'Disable a published package: no new batch can use it (running batches go on). Errors: 7030, 7035',
    tags: ['firmware'],
  }),
  delete: defineEndpoint({
    path: '/api-bms/firmware/delete',
    request: firmwareIdRequest,
    response: nullResponse,
    access: { permission: Perm.firmwarePackageDelete },
    audit: { action: 'firmware.delete', targetType: 'firmware_package' },
    summary: 'Delete a package and its file; refused while an upgrade batch names it. Errors: 7030, 7036',
    tags: ['firmware'],
  }),
};

export const upgradeEndpoints = {
  candidates: defineEndpoint({
    path: '/api-bms/upgrade/candidates',
    request: upgradeCandidatesRequest,
    response: upgradeCandidatesResponse,
    access: { permission: Perm.upgradeCreate },
    summary:
      'Devices a published package could go to, each with why it is excluded (type, model, same version, another running batch, offline, no gateway). Errors: 3061',
    tags: ['upgrade'],
  }),
  create: defineEndpoint({
    path: '/api-bms/upgrade/create',
    request: upgradeCreateRequest,
    response: createdIdResponse,
    access: { permission: Perm.upgradeCreate },
    audit: { action: 'upgrade.create', targetType: 'upgrade_batch' },
    summary: 'Start an upgrade batch in waves (first wave, then waves of a set size) with its limits',
    description:
      'Errors: -100 a field (named), 3061 the package is missing or not published, 3030 a chosen device is outside the caller’s companies (as if absent), 7039 a chosen device cannot be upgraded ({sn}, {reason}), 7042 the deadline is not in the future.',
    tags: ['upgrade'],
  }),
  pageList: defineEndpoint({
    path: '/api-bms/upgrade/pageList',
    request: upgradePageListRequest,
    response: upgradePageListResponse,
    access: { permission: Perm.upgradeList },
    summary: 'Upgrade batches (upgrade records), newest first, with device counts per state',
    tags: ['upgrade'],
  }),
  detail: defineEndpoint({
    path: '/api-bms/upgrade/detail',
    request: upgradeIdRequest,
    response: upgradeDetailResponse,
    access: { permission: Perm.upgradeList },
    summary:
      'One batch: its settings and every device with its state timeline, reason, from and to version. Errors: 7037',
    tags: ['upgrade'],
  }),
  retry: defineEndpoint({
    path: '/api-bms/upgrade/retry',
    request: upgradeRetryRequest,
    response: upgradeCountResponse,
    access: { permission: Perm.upgradeManage },
    audit: { action: 'upgrade.retry', targetType: 'upgrade_batch' },
    summary: 'Retry the batch’s failed devices (all, or the ones named). Errors: 7037, 7038, 7040, 3061',
    tags: ['upgrade'],
  }),
  cancel: defineEndpoint({
    path: '/api-bms/upgrade/cancel',
    request: upgradeCancelRequest,
    response: upgradeCountResponse,
    access: { permission: Perm.upgradeManage },
    audit: { action: 'upgrade.cancel', targetType: 'upgrade_batch' },
    summary:
      'Cancel devices that have not started (all waiting, or the ones named). Errors: 7037, 7038, 7041',
    tags: ['upgrade'],
  }),
  pause: defineEndpoint({
    path: '/api-bms/upgrade/pause',
    request: upgradeIdRequest,
    response: upgradeBatchResponse,
    access: { permission: Perm.upgradeManage },
    audit: { action: 'upgrade.pause', targetType: 'upgrade_batch' },
    summary: 'Pause a running batch: nothing new starts; started devices go on. Errors: 7037, 7038',
    tags: ['upgrade'],
  }),
  resume: defineEndpoint({
    path: '/api-bms/upgrade/resume',
    request: upgradeIdRequest,
    response: upgradeBatchResponse,
    access: { permission: Perm.upgradeManage },
    audit: { action: 'upgrade.resume', targetType: 'upgrade_batch' },
    summary: 'Resume a paused batch (also one the failure rate paused). Errors: 7037, 7038',
    tags: ['upgrade'],
  }),
};
