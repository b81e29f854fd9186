/**
 * Command service edge cases that need no broker: the reply timeout or a shutdown arriving while
 * the command is still being published (a slow broker acknowledgement) fails the command with
 * 3035 for its caller, and never surfaces as an unhandled rejection (which stops Node).
 */
import { ErrorCode } from '@ess/contract';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CommandService } from '../src/devices/commands';
import type { ConnectionTracker } from '../src/devices/connection-tracker';
import type { DeviceDirectory, DirectoryEntry } from '../src/devices/device-directory';

const gateway: DirectoryEntry = {
  deviceId: 1,
  sn: 'EMS-CMD-01',
  type: 'ems',
  siteId: 1,
  companyId: 1,
  gatewayId: 1,
  isGateway: true,
  secretHash: null,
  mqttClientId: null,
  timezone: 'Asia/Shanghai',
};
const directory = {
  lookup: async (sn: string) => (sn === gateway.sn ? gateway : undefined),
} as DeviceDirectory;
const tracker = { isOnline: () => true } as unknown as ConnectionTracker;

/** A publish acknowledged by the broker only after `ms`. */
const slowPublish = (ms: number) => () => new Promise<void>((r) => setTimeout(r, ms));

describe('command service', () => {
  const unhandled: unknown[] = [];
  const record = (reason: unknown) => unhandled.push(reason);
  beforeEach(() => {
    unhandled.length = 0;
    process.on('unhandledRejection', record);
  });
  afterEach(() => {
    process.off('unhandledRejection', record);
  });

  it('the reply timeout expiring while the publish is pending fails the command with 3035', async () => {
    const commands = new CommandService(directory, tracker, slowPublish(100), 20);
    await expect(commands.send(gateway.sn, 'time_sync', { serverTs: Date.now() })).rejects.toMatchObject({
      code: ErrorCode.DEVICE_SEND_FAILED,
    });
    await new Promise((r) => setTimeout(r, 20));
    expect(unhandled).toEqual([]);
  });

  it('a shutdown while the publish is pending fails the command with 3035', async () => {
    const commands = new CommandService(directory, tracker, slowPublish(100));
    const sent = commands.send(gateway.sn, 'set_params', { cooling_start_c: 28 });
    await new Promise((r) => setTimeout(r, 20));
    commands.close();
    await expect(sent).rejects.toMatchObject({ code: ErrorCode.DEVICE_SEND_FAILED });
    await new Promise((r) => setTimeout(r, 20));
    expect(unhandled).toEqual([]);
  });

  it('a reply with the command’s id resolves it; unknown SNs are 3030', async () => {
    let published: { id: string } | undefined;
    const commands = new CommandService(directory, tracker, async (_topic, payload) => {
      published = JSON.parse(payload);
    });
    const sent = commands.send(gateway.sn, 'time_sync', { serverTs: 1 });
    await new Promise((r) => setTimeout(r, 10));
    commands.handleReply(Buffer.from(JSON.stringify({ v: 1, id: published!.id, ts: Date.now(), ok: true })));
    await expect(sent).resolves.toMatchObject({ id: published!.id, ok: true });
    await expect(commands.send('EMS-NONE-01', 'time_sync', {})).rejects.toMatchObject({
      code: ErrorCode.DEVICE_NOT_FOUND,
    });
  });
});
