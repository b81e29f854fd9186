/**
 * Data export calls (spec §5, §9), all needing `monitor:export:run`:
 *
 * - `/api-bms/export/sites` {agentId} → `{list}` of the agent's sites in the caller's scope;
 * - `/api-bms/export/devices` {siteId} → `{list}` of the site's devices;
 * - `/api-bms/export/xlsx` {agentId, startMs, endMs, siteId, type, deviceIds, items} → the xlsx
 *   file, streamed (the one call that does not answer an envelope when it succeeds): HTTP 200,
 *   `Content-Type` xlsx, `Content-Disposition: attachment` with an ASCII `filename` and an RFC 5987
 *   `filename*`, `X-Export-Rows` (data rows the file holds), no `Content-Length`. Any refusal
 *   comes before the first byte as the usual `{code, msg, data: null}`: 3130–3138 and 3120/3122
 *   (api/export.ts), 6000 agent, 3036 site, 3030 device, -100 malformed body.
 */
import { PassThrough } from 'node:stream';
import { EXPORT_ROWS_HEADER, endpoints, exportFileName, XLSX_MIME } from '@ess/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { companyScope } from '../../access/company-scope';
import { fileRoute, route } from '../../core/http/endpoint';
import { ok } from '../../core/http/envelope';
import { ExportService } from './export-service';

/**
 * `Content-Disposition` of a download: `attachment; filename="<ASCII fallback>";
 * filename*=UTF-8''<percent-encoded>` (RFC 6266 with RFC 5987 for names outside ASCII).
 */
export function attachmentHeader(fileName: string): string {
  const fallback = fileName.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  const encoded = encodeURIComponent(fileName).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}

const calls = endpoints.export;

export const exportRoutes: FastifyPluginAsyncZod = async (app) => {
  const service = new ExportService(app.db);
  const scopeOf = (request: { auth: Parameters<typeof companyScope>[1] }) =>
    companyScope(app.db, request.auth);

  route(app, calls.sites, async (request) =>
    ok(request, { list: await service.sites(await scopeOf(request), request.body.agentId) }),
  );

  route(app, calls.devices, async (request) =>
    ok(request, { list: await service.devices(await scopeOf(request), request.body.siteId) }),
  );

  fileRoute(app, calls.xlsx, async (request, reply) => {
    const plan = await service.plan(await scopeOf(request), request.body);
    const fileName = exportFileName(plan.site.code, plan.type, plan.startDay, plan.endDay);
    const out = new PassThrough();
    let gone = false;
    reply.raw.on('close', () => {
      if (!reply.raw.writableFinished) gone = true;
    });
    service.write(plan, out, { lang: request.lang, aborted: () => gone }).catch((err: unknown) => {
      // Headers are out: the client sees a cut download (its reader errors).
      request.log.error({ err }, 'export failed while streaming');
      out.destroy(err as Error);
    });
    return reply
      .header('content-type', XLSX_MIME)
      .header('content-disposition', attachmentHeader(fileName))
      .header(EXPORT_ROWS_HEADER, String(plan.rows))
      .header('cache-control', 'no-store')
      .send(out);
  });
};
