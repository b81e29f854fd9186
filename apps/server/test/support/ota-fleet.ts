/**
 * Test support for upgrade batches: gateways registered through the API (a site each five, an
 * EMS each, with the secret the console shows once) and a published firmware package of a
 * device type put straight into the database (the upload itself is tested with the packages).
 */
import { randomBytes } from 'node:crypto';
import { endpoints } from '@ess/contract';
import type { FastifyInstance } from 'fastify';
import type { Db } from '../../src/core/db/database';
import { company, firmwarePackage } from '../../src/core/db/schema';
import { call } from './client';

export interface RegisteredGateway {
  id: number;
  sn: string;
  secret: string;
  siteId: number;
}

/** `count` EMS gateways named `<tag>-G<i>`, five per site; answers them in order. */
export async function registerGateways(
  app: FastifyInstance,
  token: string,
  tag: string,
  count: number,
  options: { model?: string } = {},
): Promise<RegisteredGateway[]> {
  const clean = tag.replace(/[^A-Za-z0-9]/g, '').slice(-12);
  const out: RegisteredGateway[] = [];
  let siteId = 0;
  for (let i = 0; i < count; i++) {
    if (i % 5 === 0) {
      const site = await call(
        app,
        endpoints.site.save.path,
        {
          code: `${clean}S${i}`,
          name: `OTA site ${clean} ${i / 5 + 1}`,
          timezone: 'Asia/Shanghai',
        },
        { token },
      );
      if (site.code !== 0) throw new Error(`site.save: ${site.msg}`);
      siteId = site.data.id;
    }
    const sn = `${clean}-G${i}`;
    const saved = await call(
      app,
      endpoints.device.save.path,
      {
        siteId,
        sn,
        type: 'ems',
        ...(options.model ? { model: options.model } : {}),
      },
      { token },
    );
    if (saved.code !== 0) throw new Error(`device.save: ${saved.msg}`);
    out.push({ id: saved.data.id, sn, secret: saved.data.secret.secret, siteId });
  }
  return out;
}

/** A package row (default `published`) of the platform's company; answers its id. */
export async function createPublishedPackage(
  db: Db,
  fields: { deviceType: string; version: string; models?: string[]; state?: string },
): Promise<number> {
  const [platform] = await db.select({ id: company.id }).from(company).limit(1);
  const [row] = await db
    .insert(firmwarePackage)
    .values({
      companyId: platform!.id,
      name: `Firmware ${fields.version}`,
      version: fields.version,
      deviceType: fields.deviceType,
      models: fields.models ?? [],
      fileName: `fw-${fields.version}.bin`,
      sizeBytes: 1024,
      chunkBytes: 1024 * 1024,
      uploadedAt: new Date(),
      sha256: randomBytes(32).toString('hex'),
      state: fields.state ?? 'published',
      uploaderName: 'admin',
    })
    .returning({ id: firmwarePackage.id });
  return row!.id;
}
