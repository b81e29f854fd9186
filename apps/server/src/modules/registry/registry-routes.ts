/**
 * `/api-bms/site/*` and `/api-bms/device/*` (devices issue; spec §2 `/deviceconfig`). Lists
 * answer `{list, total}`; codes 3030–3039 and 6000 (docs/api.md).
 */
import {
  deviceInput,
  deviceListRequest,
  deviceListResponse,
  deviceSaveResponse,
  deviceSecretResponse,
  deviceUpdate,
  envelopeOf,
  idRequest,
  Perm,
  RegistryPath,
  siteInput,
  siteListRequest,
  siteListResponse,
  siteUpdate,
} from '@ess/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { companyScope } from '../../access/company-scope';
import { ok } from '../../core/http/envelope';
import type { RegistryService } from './registry-service';

declare module 'fastify' {
  interface FastifyInstance {
    registry: RegistryService;
  }
}

const nullData = envelopeOf(z.null());

export const registryRoutes: FastifyPluginAsyncZod = async (app) => {
  // Built in app.ts, which wires its hooks to the modules that listen.
  const registry = app.registry;
  const scopeOf = (request: { auth: { companyId: number; employeeId: number } }) =>
    companyScope(app.db, request.auth);
  /** Where devices connect, shown with a secret: the external broker, or the embedded one's port. */
  const brokerFacts = (): { mqttHost: string | null; mqttPort: number | null } => {
    const address = app.devices?.brokerAddress;
    if (address?.url) {
      const url = new URL(address.url);
      return { mqttHost: url.hostname, mqttPort: Number(url.port || 1883) };
    }
    return { mqttHost: null, mqttPort: address?.port ?? null };
  };
  // The broker authenticates from a cached directory: reload it after every registry change so
  // new devices and re-issued secrets work at once.
  app.addHook('onResponse', async (request) => {
    if (request.url.startsWith('/api-bms/device/') && !request.url.endsWith('pageList')) {
      await app.devices?.directory.refresh();
    }
  });

  app.post(
    RegistryPath.sitePageList,
    {
      config: { permission: Perm.siteList },
      schema: {
        tags: ['site'],
        summary: 'Sites in the caller’s companies, with device counts, capacity (kWh) and PCS power (kW)',
        body: siteListRequest,
        response: { 200: envelopeOf(siteListResponse.nullable()) },
      },
    },
    async (request) => ok(request, await registry.listSites(await scopeOf(request), request.body)),
  );

  app.post(
    RegistryPath.siteSave,
    {
      config: { permission: Perm.siteSave, audit: { action: 'site.save', targetType: 'site' } },
      schema: {
        tags: ['site'],
        summary: 'Create a site. Errors: 3039 code exists, 6000 company outside the caller’s scope',
        body: siteInput,
        response: { 200: envelopeOf(z.object({ id: z.number() }).nullable()) },
      },
    },
    async (request) => {
      const id = await registry.createSite(await scopeOf(request), request.auth.companyId, request.body);
      return ok(request, { id });
    },
  );

  app.post(
    RegistryPath.siteUpdate,
    {
      config: { permission: Perm.siteSave, audit: { action: 'site.update', targetType: 'site' } },
      schema: {
        tags: ['site'],
        summary: 'Update a site. Errors: 3036 not found, 3039 code exists, 6000',
        body: siteUpdate,
        response: { 200: nullData },
      },
    },
    async (request) => {
      await registry.updateSite(
        await scopeOf(request),
        request.auth.companyId,
        request.body.id,
        request.body,
      );
      return ok(request, null);
    },
  );

  app.post(
    RegistryPath.siteDelete,
    {
      config: { permission: Perm.siteDelete, audit: { action: 'site.delete', targetType: 'site' } },
      schema: {
        tags: ['site'],
        summary: 'Delete an empty site. Errors: 3036 not found, 3037 it still has devices',
        body: idRequest,
        response: { 200: nullData },
      },
    },
    async (request) => {
      await registry.deleteSite(await scopeOf(request), request.body.id);
      return ok(request, null);
    },
  );

  app.post(
    RegistryPath.devicePageList,
    {
      config: { permission: Perm.siteList },
      schema: {
        tags: ['device'],
        summary: 'Devices in the caller’s companies; filter by site, type, SN/model keyword, online',
        body: deviceListRequest,
        response: { 200: envelopeOf(deviceListResponse.nullable()) },
      },
    },
    async (request) => ok(request, await registry.listDevices(await scopeOf(request), request.body)),
  );

  app.post(
    RegistryPath.deviceSave,
    {
      config: { permission: Perm.deviceSave, audit: { action: 'device.save', targetType: 'device' } },
      schema: {
        tags: ['device'],
        summary: 'Register a device; a gateway’s MQTT secret is answered once',
        description: 'Errors: 3036 site not found, 3030 gateway not found in that site, 3032 SN exists.',
        body: deviceInput,
        response: { 200: envelopeOf(deviceSaveResponse.nullable()) },
      },
    },
    async (request) => {
      const created = await registry.createDevice(await scopeOf(request), request.body);
      return ok(request, {
        id: created.id,
        secret: created.secret && { ...created.secret, ...brokerFacts() },
      });
    },
  );

  app.post(
    RegistryPath.deviceUpdate,
    {
      config: { permission: Perm.deviceSave, audit: { action: 'device.update', targetType: 'device' } },
      schema: {
        tags: ['device'],
        summary: 'Update a device. Errors: 3030, 3032, 3036, 3038 (a gateway with devices behind it)',
        body: deviceUpdate,
        response: { 200: nullData },
      },
    },
    async (request) => {
      await registry.updateDevice(await scopeOf(request), request.body.id, request.body);
      return ok(request, null);
    },
  );

  app.post(
    RegistryPath.deviceDelete,
    {
      config: { permission: Perm.deviceDelete, audit: { action: 'device.delete', targetType: 'device' } },
      schema: {
        tags: ['device'],
        summary: 'Delete a device. Errors: 3030 not found, 3038 devices still report through this gateway',
        body: idRequest,
        response: { 200: nullData },
      },
    },
    async (request) => {
      await registry.deleteDevice(await scopeOf(request), request.body.id);
      return ok(request, null);
    },
  );

  app.post(
    RegistryPath.deviceResetSecret,
    {
      config: {
        permission: Perm.deviceSecret,
        audit: { action: 'device.resetSecret', targetType: 'device' },
      },
      schema: {
        tags: ['device'],
        summary: 'Issue a new MQTT secret for a gateway (the old one stops working at its next connect)',
        description: 'Errors: 3030 not found, 3031 not a gateway (it has no MQTT connection of its own).',
        body: idRequest,
        response: { 200: envelopeOf(deviceSecretResponse.nullable()) },
      },
    },
    async (request) =>
      ok(request, {
        ...(await registry.resetSecret(await scopeOf(request), request.body.id)),
        ...brokerFacts(),
      }),
  );
};
