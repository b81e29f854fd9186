/**
 * Command service edge cases that need no broker: the reply timeout or a shutdown arriving while
 * the command is still being published (a slow broker acknowledgement) fails the command with
 * 3035 for its caller, and never surfaces as an unhandled rejection (which stops Node); replies
 * received before anyone listens for unmatched ones are handed to the first listener.
 */
import { ErrorCode } from '@ess/contract';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
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

/**
 * A publish the test acknowledges itself: `called` settles when the service publishes,
 * `ack()` / `fail()` are the broker's answer.
 */
function heldPublish() {
  let called!: () => void;
  const published = new Promise<void>((r) => {
    called = r;
  });
  let ack!: () => void;
  let fail!: (err: Error) => void;
  const answer = new Promise<void>((resolve, reject) => {
    ack = resolve;
    fail = reject;
  });
  const publish = () => {
    called();
    return answer;
  };
  return { publish, published, ack: () => ack(), fail: (err: Error) => fail(err) };
}

/** One turn of the event loop: Node reports unhandled rejections before it ends. */
const turn = () => new Promise((r) => setImmediate(r));

describe('command service', () => {
  const unhandled: unknown[] = [];
  const record = (reason: unknown) => unhandled.push(reason);
  beforeEach(() => {
    unhandled.length = 0;
    process.on('unhandledRejection', record);
  });
  afterEach(() => {
    process.off('unhandledRejection', record);
    vi.useRealTimers();
  });

  it('the reply timeout expiring while the publish is pending fails the command with 3035', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const held = heldPublish();
    const commands = new CommandService(directory, tracker, held.publish, 20);
    const sent = commands.send(gateway.sn, 'time_sync', { serverTs: Date.now() });
    await held.published;
    vi.advanceTimersByTime(20); // the reply timeout expires; the broker has not acknowledged yet
    await turn();
    held.ack();
    await expect(sent).rejects.toMatchObject({ code: ErrorCode.DEVICE_SEND_FAILED });
    await turn();
    expect(unhandled).toEqual([]);
  });

  it('a shutdown while the publish is pending fails the command with 3035', async () => {
    const held = heldPublish();
    const commands = new CommandService(directory, tracker, held.publish);
    const sent = commands.send(gateway.sn, 'set_params', { cooling_start_c: 28 });
    await held.published;
    commands.close();
    await turn();
    held.ack();
    await expect(sent).rejects.toMatchObject({ code: ErrorCode.DEVICE_SEND_FAILED });
    await turn();
    expect(unhandled).toEqual([]);
  });

  it('a publish the broker refuses fails the command with 3035 at once', async () => {
    const held = heldPublish();
    const commands = new CommandService(directory, tracker, held.publish);
    const sent = commands.send(gateway.sn, 'set_params', { cooling_start_c: 28 });
    await held.published;
    held.fail(new Error('not connected to the MQTT broker'));
    await expect(sent).rejects.toMatchObject({ code: ErrorCode.DEVICE_SEND_FAILED });
    await turn();
    expect(unhandled).toEqual([]);
  });

  it('a reply with the command’s id resolves it; unknown SNs are 3030', async () => {
    let published: { id: string } | undefined;
    const held = heldPublish();
    const commands = new CommandService(directory, tracker, async (_topic, payload) => {
      published = JSON.parse(payload);
      held.publish();
    });
    const sent = commands.send(gateway.sn, 'time_sync', { serverTs: 1 });
    await held.published;
    commands.handleReply(Buffer.from(JSON.stringify({ v: 1, id: published!.id, ts: Date.now(), ok: true })));
    await expect(sent).resolves.toMatchObject({ id: published!.id, ok: true });
    await expect(commands.send('EMS-NONE-01', 'time_sync', {})).rejects.toMatchObject({
      code: ErrorCode.DEVICE_NOT_FOUND,
    });
  });

  it('replies nobody waits for, received before anyone listens, go to the first listener within the reply timeout', () => {
    vi.useFakeTimers({ toFake: ['Date'], now: 1_000_000 });
    const commands = new CommandService(directory, tracker, async () => {}, 10_000);
    const reply = (id: string) => Buffer.from(JSON.stringify({ v: 1, id, ts: Date.now(), ok: true }));
    commands.handleReply(reply('c-stale'));
    vi.setSystemTime(1_000_000 + 10_001);
    commands.handleReply(reply('c-held-1'));
    commands.handleReply(reply('c-held-2'));
    const first: string[] = [];
    const second: string[] = [];
    commands.onUnmatchedReply((r) => first.push(r.id));
    commands.onUnmatchedReply((r) => second.push(r.id));
    // The one older than the reply timeout is dropped; the others go to the first listener, once.
    expect(first).toEqual(['c-held-1', 'c-held-2']);
    expect(second).toEqual([]);
    commands.handleReply(reply('c-later'));
    expect(first.at(-1)).toBe('c-later');
    expect(second).toEqual(['c-later']);
  });
});
