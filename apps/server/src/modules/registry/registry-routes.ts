/**
 * `/api-bms/site/*` and `/api-bms/device/*` (devices issue; spec §2 `/deviceconfig`). Lists
 * answer `{list, total}`; codes 3030–3042 and 6000 (docs/api.md). Every write records the
 * row's form fields before → after in the operation log (a device's secret never: only
 * whether it has one); a move records where from and where to, and what moved with it.
 */
import { endpoints } from '@ess/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { recordChange } from '../../access/audit';
import { companyScope } from '../../access/company-scope';
import type { device, site } from '../../core/db/schema';
import { route } from '../../core/http/endpoint';
import { ok } from '../../core/http/envelope';

/** What the operation log shows of a site: the fields its form sets, and its ToU scheme. */
function siteFacts(row: typeof site.$inferSelect) {
  const { id, companyId, code, name, address, timezone, latitude, longitude, touSchemeId } = row;
  return { id, companyId, code, name, address, timezone, latitude, longitude, touSchemeId };
}

/** What the operation log shows of a device: the fields its form sets, and whether it has a secret. */
function deviceFacts(row: typeof device.$inferSelect) {
  return {
    id: row.id,
    companyId: row.companyId,
    siteId: row.siteId,
    gatewayId: row.gatewayId,
    sn: row.sn,
    type: row.type,
    model: row.model,
    ratedPowerKw: row.ratedPowerKw,
    capacityKwh: row.capacityKwh,
    mqttClientId: row.mqttClientId,
    connAddress: row.connAddress,
    connPort: row.connPort,
    hasSecret: row.secretHash !== null,
  };
}

const { site: siteCalls, device: deviceCalls } = endpoints;

/** Calls after which the broker's device directory is reloaded. */
const DIRECTORY_CHANGES = new Set<string>(
  [
    deviceCalls.save,
    deviceCalls.update,
    deviceCalls.delete,
    deviceCalls.resetSecret,
    deviceCalls.moveSite,
    siteCalls.moveCompany,
  ].map((e) => e.path),
);

export const registryRoutes: FastifyPluginAsyncZod = async (app) => {
  // Built in app.ts, which wires its hooks to the modules that listen.
  const registry = app.registry;
  const scopeOf = (request: { auth: { companyId: number; employeeId: number } }) =>
    companyScope(app.db, request.auth);
  /**
   * Where devices connect, shown with a secret (contract `deviceSecretResponse`): the external
   * broker's host, or null for the console's own; the plain and TLS ports; the certificate to
   * trust for TLS and its SHA-256 fingerprint.
   */
  const brokerFacts = () => {
    const address = app.devices?.brokerAddress;
    return {
      mqttHost: address?.url ? new URL(address.url).hostname : null,
      mqttPort: address?.port ?? null,
      mqttTlsPort: address?.tls?.port ?? null,
      mqttTlsCa: address?.tls?.ca ?? null,
      mqttTlsFingerprint: address?.tls?.fingerprint ?? null,
    };
  };
  // The broker authenticates and the ingest resolves SNs from a cached directory: reload it after
  // every registry change, before the answer goes out, so a device registered (or moved, or given
  // a new secret) and connecting the moment the operator sees "saved" is already known.
  app.addHook('onSend', async (request, _reply, payload) => {
    if (DIRECTORY_CHANGES.has(request.routeOptions.url ?? '')) {
      try {
        await app.devices?.directory.refresh();
      } catch (err) {
        // The change is stored; the next periodic reload picks it up.
        request.log.warn({ err }, 'device directory reload after a registry change failed');
      }
    }
    return payload;
  });

  route(app, siteCalls.pageList, async (request) =>
    ok(request, await registry.listSites(await scopeOf(request), request.body)),
  );

  route(app, siteCalls.save, async (request) => {
    const scope = await scopeOf(request);
    const id = await registry.createSite(scope, request.auth.companyId, request.body);
    recordChange(request, { targetId: id, after: siteFacts(await registry.requireSite(scope, id)) });
    return ok(request, { id });
  });

  route(app, siteCalls.update, async (request) => {
    const scope = await scopeOf(request);
    const { id } = request.body;
    const before = siteFacts(await registry.requireSite(scope, id));
    await registry.updateSite(scope, id, request.body);
    recordChange(request, { targetId: id, before, after: siteFacts(await registry.requireSite(scope, id)) });
    return ok(request, null);
  });

  route(app, siteCalls.moveCompanyPreview, async (request) => {
    const { id, companyId } = request.body;
    return ok(request, await registry.previewSiteMove(await scopeOf(request), id, companyId));
  });

  route(app, siteCalls.moveCompany, async (request) => {
    const { id, companyId } = request.body;
    const outcome = await registry.moveSite(await scopeOf(request), id, companyId);
    const scheme = outcome.touScheme;
    recordChange(request, {
      targetId: id,
      before: {
        companyId: outcome.from.id,
        companyName: outcome.from.name,
        touSchemeId: scheme?.id ?? null,
      },
      after: {
        companyId: outcome.to.id,
        companyName: outcome.to.name,
        touSchemeId: scheme?.kept ? scheme.id : null,
        devices: outcome.devices,
        alarms: outcome.alarms,
        ...(scheme && !scheme.kept ? { touSchemeRemoved: scheme.name } : {}),
      },
    });
    return ok(request, outcome);
  });

  route(app, siteCalls.delete, async (request) => {
    const scope = await scopeOf(request);
    const before = siteFacts(await registry.requireSite(scope, request.body.id));
    await registry.deleteSite(scope, request.body.id);
    recordChange(request, { targetId: request.body.id, before, after: null });
    return ok(request, null);
  });

  route(app, deviceCalls.pageList, async (request) =>
    ok(request, await registry.listDevices(await scopeOf(request), request.body)),
  );

  route(app, deviceCalls.save, async (request) => {
    const scope = await scopeOf(request);
    const created = await registry.createDevice(scope, request.body);
    recordChange(request, {
      targetId: created.id,
      after: deviceFacts(await registry.requireDevice(scope, created.id)),
    });
    return ok(request, {
      id: created.id,
      secret: created.secret && { ...created.secret, ...brokerFacts() },
    });
  });

  route(app, deviceCalls.update, async (request) => {
    const scope = await scopeOf(request);
    const { id } = request.body;
    const before = deviceFacts(await registry.requireDevice(scope, id));
    await registry.updateDevice(scope, id, request.body);
    recordChange(request, {
      targetId: id,
      before,
      after: deviceFacts(await registry.requireDevice(scope, id)),
    });
    return ok(request, null);
  });

  route(app, deviceCalls.moveSite, async (request) => {
    const { id, siteId, gatewayId } = request.body;
    const move = await registry.moveDevice(await scopeOf(request), id, { siteId, gatewayId });
    recordChange(request, {
      targetId: id,
      before: move.before,
      after: { ...move.after, devices: move.devices.map((d) => d.sn) },
    });
    return ok(request, {
      fromSiteId: move.before.siteId,
      toSiteId: move.after.siteId,
      devices: move.devices,
    });
  });

  route(app, deviceCalls.delete, async (request) => {
    const scope = await scopeOf(request);
    const before = deviceFacts(await registry.requireDevice(scope, request.body.id));
    await registry.deleteDevice(scope, request.body.id);
    recordChange(request, { targetId: request.body.id, before, after: null });
    return ok(request, null);
  });

  route(app, deviceCalls.resetSecret, async (request) => {
    const scope = await scopeOf(request);
    const { id } = request.body;
    const before = deviceFacts(await registry.requireDevice(scope, id));
    const issued = await registry.resetSecret(scope, id);
    // The log says that a new secret was issued, never the secret (nor its hash).
    recordChange(request, {
      targetId: id,
      before: { hasSecret: before.hasSecret },
      after: { hasSecret: true },
    });
    return ok(request, { ...issued, ...brokerFacts() });
  });
};
