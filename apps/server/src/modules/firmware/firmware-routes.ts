/**
 * `/api-bms/firmware/*` (contract `endpoints.firmware`, rules in api/firmware.ts) and the
 * devices' download `GET /ota/<token>` (contract device/ota.ts `OTA_DOWNLOAD_PREFIX`).
 *
 * | call     | permission               | body / query                                 | answers            |
 * |----------|--------------------------|----------------------------------------------|--------------------|
 * | pageList | firmware:package:list    | pageNum, pageSize, keyword, deviceType, state | {list, total}     |
 * | detail   | firmware:package:list    | {id}                                         | the package        |
 * | upload   | firmware:package:upload  | query: name, version, deviceType, models, releaseNoteZh/En, fileName, sha256?; body: the file | the package (`unused`) |
 * | publish  | firmware:package:publish | {id}                                         | the package        |
 * | disable  | firmware:package:publish | {id}                                         | the package        |
 * | delete   | firmware:package:delete  | {id}                                         | null               |
 *
 * Codes: modules/firmware/firmware-service.ts and devices/firmware-store.ts. Operation log:
 * every upload (also a refused one: the fields it named), publish, disable and delete, with the
 * package as target and its state before → after.
 */
import { endpoints, OTA_DEVICE_SN_HEADER } from '@ess/contract';
import { eq } from 'drizzle-orm';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { recordChange } from '../../access/audit';
import { companyScope } from '../../access/company-scope';
import { employee } from '../../core/db/schema';
import { route, uploadRoute } from '../../core/http/endpoint';
import { ok } from '../../core/http/envelope';
import { parseRange } from '../../devices/firmware-store';
import { FirmwareService } from './firmware-service';

const calls = endpoints.firmware;

export const firmwareRoutes: FastifyPluginAsyncZod = async (app) => {
  const service = new FirmwareService(app.db);
  const scopeOf = (request: { auth: { companyId: number; employeeId: number } }) =>
    companyScope(app.db, request.auth);

  route(app, calls.pageList, async (request) =>
    ok(request, await service.pageList(await scopeOf(request), request.body)),
  );

  route(app, calls.detail, async (request) =>
    ok(request, await service.detail(await scopeOf(request), request.body.id)),
  );

  uploadRoute(app, calls.upload, async (request) => {
    const q = request.query;
    const length = request.headers['content-length'];
    const declaredBytes = length !== undefined && /^\d+$/.test(length) ? Number(length) : undefined;
    const fields = {
      name: q.name,
      version: q.version,
      deviceType: q.deviceType,
      models: q.models,
      fileName: q.fileName,
      ...(q.sha256 ? { expectedSha256: q.sha256 } : {}),
    };
    recordChange(request, { after: { ...fields, sizeBytes: declaredBytes ?? null } });
    const [uploader] = await app.db
      .select({ name: employee.name })
      .from(employee)
      .where(eq(employee.id, request.auth.employeeId));
    const id = await app.firmware.store(
      {
        ...fields,
        companyId: request.auth.companyId,
        uploaderId: request.auth.employeeId,
        uploaderName: uploader?.name ?? '',
        releaseNoteZh: q.releaseNoteZh,
        releaseNoteEn: q.releaseNoteEn,
        ...(declaredBytes !== undefined ? { declaredBytes } : {}),
      },
      request.raw,
    );
    const pkg = await service.detail(await scopeOf(request), id);
    recordChange(request, {
      targetId: id,
      after: { ...fields, sizeBytes: pkg.sizeBytes, sha256: pkg.sha256, state: pkg.state },
    });
    return ok(request, pkg);
  });

  route(app, calls.publish, async (request) => {
    const { before, after } = await service.publish(await scopeOf(request), request.body.id, request.lang);
    recordChange(request, { before: { state: before.state }, after: { state: after.state } });
    return ok(request, after);
  });

  route(app, calls.disable, async (request) => {
    const { before, after } = await service.disable(await scopeOf(request), request.body.id, request.lang);
    recordChange(request, { before: { state: before.state }, after: { state: after.state } });
    return ok(request, after);
  });

  route(app, calls.delete, async (request) => {
    const before = await service.remove(await scopeOf(request), request.body.id);
    recordChange(request, {
      before: {
        name: before.name,
        version: before.version,
        deviceType: before.deviceType,
        state: before.state,
      },
      after: null,
    });
    return ok(request, null);
  });
};

/**
 * `GET /ota/<token>`: the file of the token's package for the token's device (header
 * `X-Device-Sn`), whole (200) or one range (206; 416 past the end), streamed from the database
 * chunk by chunk. Refusals are small JSON bodies `{error}` (device/ota.ts `OTA_DOWNLOAD_PREFIX`).
 * Never cached by intermediaries (`no-store`): a token is a secret.
 */
export async function otaDownloadRoutes(app: FastifyInstance): Promise<void> {
  app.route({
    method: 'GET',
    url: '/ota/:token',
    exposeHeadRoute: false,
    schema: { hide: true },
    handler: async (request: FastifyRequest, reply: FastifyReply) => {
      const { token } = request.params as { token: string };
      const sn = request.headers[OTA_DEVICE_SN_HEADER.toLowerCase()];
      const opened = await app.firmware.open(token, Array.isArray(sn) ? sn[0] : sn);
      reply.header('cache-control', 'no-store');
      if ('status' in opened) return reply.code(opened.status).send({ error: opened.error });
      const size = opened.sizeBytes;
      const etag = `"${opened.sha256}"`;
      reply.header('accept-ranges', 'bytes').header('etag', etag);
      let range = parseRange(request.headers.range, size);
      const ifRange = request.headers['if-range'];
      if (range !== undefined && ifRange !== undefined && ifRange !== etag) range = undefined;
      if (range === 'unsatisfiable') {
        return reply
          .code(416)
          .header('content-range', `bytes */${size}`)
          .send({ error: 'range_not_satisfiable' });
      }
      const start = range?.start ?? 0;
      const end = range?.end ?? size - 1;
      if (range) reply.code(206).header('content-range', `bytes ${start}-${end}/${size}`);
      reply.header('content-type', 'application/octet-stream').header('content-length', end - start + 1);
      return reply.send(app.firmware.read(opened, start, end));
    },
  });
}
