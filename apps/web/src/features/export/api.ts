/**
 * Data export calls (issue 4 item 5; shapes and rules in @ess/contract api/export.ts):
 * the agents (company options of kind agent), an agent's sites, a site's devices, and the
 * streamed xlsx download with progress.
 *
 * The download is the one call whose success is not a `{code, msg, data}` envelope
 * (docs/api.md "Export"), so it goes through `fetch` rather than the axios client: the body is
 * read chunk by chunk for the progress (bytes received; the size is unknown until the end, so
 * there is no Content-Length) and the server's `X-Export-Rows` gives the rows the file holds.
 * A refusal is JSON `{code, msg}` and becomes an `ApiError` (an expired access token is
 * refreshed once through the client's shared refresh, as for every call).
 */
import {
  type CompanyOption,
  ErrorCode,
  EXPORT_ROWS_HEADER,
  type ExportDevice,
  ExportPath,
  type ExportRequest,
  type ExportSite,
  OrgPath,
  TOKEN_HEADER,
} from '@ess/contract';
import { userInfoEcho } from '@/features/auth';
import { refreshExpiredToken, request } from '@/shared/api/client';
import { ApiError } from '@/shared/api/errors';
import { currentLang, localeOf } from '@/shared/i18n';
import { getCredentials } from '@/shared/storage/session';

/** Agent companies the caller may see (`company/options`, kind agent), by name. */
export async function fetchAgents(): Promise<CompanyOption[]> {
  const data = await request<{ list: CompanyOption[] }>(OrgPath.companyOptions, { userInfo: userInfoEcho() });
  return data.list.filter((c) => c.type === 'agent');
}

/** `export/sites`: the agent's sites in the caller's scope. */
export async function fetchExportSites(agentId: number): Promise<ExportSite[]> {
  return (await request<{ list: ExportSite[] }>(ExportPath.sites, { userInfo: userInfoEcho(), agentId }))
    .list;
}

/** `export/devices`: the site's devices (EMS first). */
export async function fetchExportDevices(siteId: number): Promise<ExportDevice[]> {
  return (await request<{ list: ExportDevice[] }>(ExportPath.devices, { userInfo: userInfoEcho(), siteId }))
    .list;
}

/** Progress of a running download. */
export interface DownloadProgress {
  bytes: number;
  /** Data rows the file holds (from `X-Export-Rows`), null until the answer starts. */
  rows: number | null;
}

/** The file name of a `Content-Disposition` (RFC 5987 `filename*` first, then `filename`). */
export function fileNameOf(disposition: string | null, fallback: string): string {
  if (!disposition) return fallback;
  const star = /filename\*\s*=\s*UTF-8''([^;]+)/i.exec(disposition);
  if (star?.[1]) {
    try {
      return decodeURIComponent(star[1].trim());
    } catch {
      // fall through to the plain name
    }
  }
  const plain = /filename\s*=\s*"([^"]*)"/i.exec(disposition) ?? /filename\s*=\s*([^;]+)/i.exec(disposition);
  return plain?.[1]?.trim() || fallback;
}

async function post(body: ExportRequest, token: string | null, signal: AbortSignal): Promise<Response> {
  return fetch(`./${ExportPath.xlsx.replace(/^\//, '')}`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      'Accept-Language': localeOf(currentLang()),
      ...(token ? { [TOKEN_HEADER]: token } : {}),
    },
    body: JSON.stringify({ ...body, userInfo: userInfoEcho() }),
    signal,
  });
}

/**
 * Runs an export and resolves with the file (name and content) once the last byte arrived,
 * calling `onProgress` as chunks come in.
 * @throws ApiError for a refusal (its code and the server's msg); DOMException 'AbortError'
 * when `signal` aborts; TypeError for a network failure or a cut stream.
 */
export async function downloadExport(
  body: ExportRequest,
  onProgress: (progress: DownloadProgress) => void,
  signal: AbortSignal,
): Promise<{ fileName: string; blob: Blob; rows: number | null }> {
  let token = getCredentials().token;
  let response = await post(body, token, signal);
  for (let retried = false; ; retried = true) {
    const type = response.headers.get('content-type') ?? '';
    if (!type.includes('application/json')) break;
    const envelope = (await response.json()) as { code: number; msg: string };
    if (envelope.code === ErrorCode.ACCESS_TOKEN_EXPIRED && !retried) {
      token = await refreshExpiredToken(token);
      response = await post(body, token, signal);
      continue;
    }
    throw new ApiError(envelope.code, envelope.msg);
  }
  if (!response.ok || !response.body) throw new TypeError(`HTTP ${response.status}`);
  const rowsHeader = response.headers.get(EXPORT_ROWS_HEADER);
  const rows = rowsHeader === null ? null : Number(rowsHeader);
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  onProgress({ bytes, rows });
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    bytes += value.length;
    onProgress({ bytes, rows });
  }
  const fileName = fileNameOf(response.headers.get('content-disposition'), 'export.xlsx');
  return {
    fileName,
    blob: new Blob(chunks as BlobPart[], { type: response.headers.get('content-type') ?? '' }),
    rows,
  };
}

/** Hands a downloaded file to the browser (a temporary link with `download`). */
export function saveFile(fileName: string, blob: Blob): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  document.body.appendChild(link);
  link.click();
  link.remove();
  window.setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
