/**
 * Data export calls (shapes and rules in @ess/contract api/export.ts):
 * the agents (company options of kind agent), an agent's sites, a site's devices, and the
 * streamed xlsx download with progress.
 *
 * The download is the one call whose success is not a `{code, msg, data}` envelope
 * (docs/api.md "Export"; the endpoint's `file` is set), so it goes through the client's
 * `requestFile`: the body is read chunk by chunk for the progress (bytes received; the size is
 * unknown until the end, so there is no Content-Length) and the server's `X-Export-Rows` gives
 * the rows the file holds. A refusal is JSON `{code, msg}` and becomes an `ApiError` (an expired
 * access token is refreshed once through the client's shared refresh, as for every call).
 */
import {
  type CompanyOption,
  companyEndpoints,
  EXPORT_ROWS_HEADER,
  type ExportDevice,
  type ExportRequest,
  type ExportSite,
  exportEndpoints,
} from '@ess/contract';
import { request, requestFile } from '@/shared/api/client';

/** Agent companies the caller may see (`company/options`, kind agent), by name. */
export async function fetchAgents(): Promise<CompanyOption[]> {
  const data = await request(companyEndpoints.options, {});
  return data.list.filter((c) => c.type === 'agent');
}

/** `export/sites`: the agent's sites in the caller's scope. */
export async function fetchExportSites(agentId: number): Promise<ExportSite[]> {
  return (await request(exportEndpoints.sites, { agentId })).list;
}

/** `export/devices`: the site's devices (EMS first). */
export async function fetchExportDevices(siteId: number): Promise<ExportDevice[]> {
  return (await request(exportEndpoints.devices, { siteId })).list;
}

/** Progress of a running download. */
export interface DownloadProgress {
  bytes: number;
  /** Data rows the file holds (from `X-Export-Rows`), null until the answer starts. */
  rows: number | null;
}

function rowsOf(headers: Headers): number | null {
  const value = headers.get(EXPORT_ROWS_HEADER);
  return value === null ? null : Number(value);
}

/**
 * Runs an export (`exportEndpoints.xlsx`, a `file` endpoint: see the client's `requestFile`)
 * and resolves with the file (name and content) once the last byte arrived, calling
 * `onProgress` as chunks come in.
 * @throws ApiError for a refusal (its code and the server's msg); DOMException 'AbortError'
 * when `signal` aborts; TypeError for a network failure or a cut stream.
 */
export async function downloadExport(
  body: ExportRequest,
  onProgress: (progress: DownloadProgress) => void,
  signal: AbortSignal,
): Promise<{ fileName: string; blob: Blob; rows: number | null }> {
  const file = await requestFile(exportEndpoints.xlsx, body, {
    signal,
    onProgress: (bytes, headers) => onProgress({ bytes, rows: rowsOf(headers) }),
  });
  return { fileName: file.fileName ?? 'export.xlsx', blob: file.blob, rows: rowsOf(file.headers) };
}

/** Hands a downloaded file to the browser (shared/ui/download.ts). */
export { saveFile } from '@/shared/ui/download';
