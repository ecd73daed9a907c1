import { createLogger } from '@homeops/common';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DeviceService, type DeviceServiceOptions } from '../../src/domain/device.service.js';
import { cloudDevice, FakeDeviceCloud } from '../fakes/fake-device-cloud.js';
import { DOMAIN_FAMILIES } from '../../src/families/index.js';
import { SWITCHES } from '../../src/families/switch/domain/switches.js';

let service: DeviceService | undefined;
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
});
afterEach(async () => {
  await service?.stop();
  service = undefined;
  vi.useRealTimers();
});

const plugs = (n: number) => Array.from({ length: n }, (_, i) => cloudDevice({ uuid: `plug-${i + 1}` }));

/** The service with background reads on, over a fake cloud, started like main does; returns its log lines. */
async function startService(cloud: FakeDeviceCloud, options: Partial<DeviceServiceOptions> = {}) {
  const lines: Array<{ msg: string; [key: string]: unknown }> = [];
  const logger = createLogger({ service: 'test', level: 'debug', destination: { write: (line: string) => lines.push(JSON.parse(line)) } });
  service = new DeviceService(
    cloud,
    {
      families: DOMAIN_FAMILIES,
      maxMessagesPerMinute: 30,
      syncIntervalSeconds: 0,
      requestTimeoutMs: 200,
      commandTimeoutMs: 100,
      backgroundStateReads: true,
      backgroundReadIntervalSeconds: 60,
      ...options,
    },
    logger,
  );
  await service.start();
  await vi.advanceTimersByTimeAsync(0);
  return { service, lines };
}

/** The broker connection drops and comes back: the backend reports each device's command channel down, then up. */
function flapCommandChannels(cloud: FakeDeviceCloud, uuids: string[]): void {
  for (const commandReady of [false, true]) {
    for (const uuid of uuids) cloud.emit({ type: 'device', device: cloudDevice({ uuid, commandReady }) });
  }
}

const readsOf = (cloud: FakeDeviceCloud, uuid: string) => cloud.callsOf('readChannels').filter(([u]) => u === uuid).length;

describe('background state reads (after a sync, when a command channel comes back)', () => {
  it('reads each device at most once per interval however often its command channel drops and comes back', async () => {
    const cloud = new FakeDeviceCloud(plugs(2));
    cloud.setState('plug-1', 0, true);
    const { service } = await startService(cloud);
    expect([readsOf(cloud, 'plug-1'), readsOf(cloud, 'plug-2')]).toEqual([1, 1]);

    for (let i = 0; i < 20; i += 1) {
      flapCommandChannels(cloud, ['plug-1', 'plug-2']);
      await vi.advanceTimersByTimeAsync(1_000);
    }

    expect([readsOf(cloud, 'plug-1'), readsOf(cloud, 'plug-2')]).toEqual([1, 1]);
    // Pushes were missed while the channel was down: the service shows no state it cannot vouch for.
    expect(service.getDevice('plug-1').channels[0]?.on).toBeNull();

    await vi.advanceTimersByTimeAsync(40_000);

    expect([readsOf(cloud, 'plug-1'), readsOf(cloud, 'plug-2')]).toEqual([2, 2]);
    expect(service.getDevice('plug-1').channels[0]?.on).toBe(true);
    expect(service.health().commands.usedLastMinute).toBe(2);
  });

  it('a user toggle still goes through right after a burst of reconnects, without waiting for the deferred read', async () => {
    const cloud = new FakeDeviceCloud(plugs(1));
    const { service } = await startService(cloud, { maxMessagesPerMinute: 4 });
    for (let i = 0; i < 10; i += 1) flapCommandChannels(cloud, ['plug-1']);
    await vi.advanceTimersByTimeAsync(0);

    const result = await service.use(SWITCHES).toggle('plug-1', 0);

    expect(result.on).toBe(true);
    expect(cloud.stateOf('plug-1', 0)).toBe(true);
    // The startup read, then the toggle's own read of the unknown state and its switch.
    expect(readsOf(cloud, 'plug-1')).toBe(2);
    expect(cloud.callsOf('setChannel')).toEqual([['plug-1', 0, true]]);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(readsOf(cloud, 'plug-1')).toBe(2);
  });

  it('leaves half of the message budget to callers: reads past it are deferred with one log line, then done once it frees', async () => {
    const cloud = new FakeDeviceCloud(plugs(4));
    // 6 per minute, 3 kept for callers: the startup sync and two reads fill the background share.
    const { service, lines } = await startService(cloud, { maxMessagesPerMinute: 6 });

    expect(cloud.callsOf('readChannels')).toEqual([['plug-1'], ['plug-2']]);
    flapCommandChannels(cloud, ['plug-3', 'plug-4']);
    await vi.advanceTimersByTimeAsync(1_000);
    const deferred = lines.filter((l) => l.msg.startsWith('background state reads deferred'));
    expect(deferred).toHaveLength(1);
    expect(deferred[0]).toMatchObject({ devices: ['plug-3', 'plug-4'] });
    expect(deferred[0]?.budget).toContainEqual(expect.objectContaining({ window: 'burst', limit: 6, reservedForCallers: 3 }));

    const toggled = await service.use(SWITCHES).toggle('plug-3', 0);

    expect(toggled.on).toBe(true);
    expect(service.health().commands.usedLastMinute).toBe(5);
    await vi.advanceTimersByTimeAsync(61_000);
    expect(cloud.callsOf('readChannels').map(([uuid]) => uuid)).toEqual(['plug-1', 'plug-2', 'plug-3', 'plug-4']);
    expect(service.getDevice('plug-4').channels[0]?.on).toBe(false);
  });

  it('logs a failed background read and carries on: no crash, no unhandled rejection', async () => {
    const cloud = new FakeDeviceCloud(plugs(1));
    cloud.failNext('readChannels', 'cloud-error');

    const { service, lines } = await startService(cloud);

    expect(lines).toContainEqual(expect.objectContaining({ msg: 'could not read device state', uuid: 'plug-1' }));
    expect((await service.use(SWITCHES).set('plug-1', 0, true)).on).toBe(true);
  });

  it('sends nothing when a command learned the state while the read waited, and gives its budget back', async () => {
    const cloud = new FakeDeviceCloud(plugs(1));
    const { service } = await startService(cloud, { backgroundReadIntervalSeconds: 1, commandTimeoutMs: 10_000 });
    cloud.holdCommands();
    const command = service.use(SWITCHES).set('plug-1', 0, true);
    await vi.advanceTimersByTimeAsync(2_000);
    flapCommandChannels(cloud, ['plug-1']);
    await vi.advanceTimersByTimeAsync(0);
    cloud.releaseAll();
    await command;
    await vi.advanceTimersByTimeAsync(0);

    expect(readsOf(cloud, 'plug-1')).toBe(1);
    // The startup sync, the startup read and the command.
    expect(service.health().commands.usedLastMinute).toBe(3);
  });

  it("runs a caller's command before a background read waiting for the same device", async () => {
    const channels = [0, 1, 2].map((channel) => ({ channel, name: `Outlet ${channel}` }));
    const cloud = new FakeDeviceCloud([cloudDevice({ uuid: 'strip-1', channels })]);
    const { service } = await startService(cloud, { backgroundReadIntervalSeconds: 1, commandTimeoutMs: 10_000 });
    cloud.holdCommands();
    const first = service.use(SWITCHES).set('strip-1', 1, true);
    await vi.advanceTimersByTimeAsync(2_000);
    // The channel drops while the first command runs: every state is unknown, a read is queued behind it.
    cloud.emit({ type: 'device', device: cloudDevice({ uuid: 'strip-1', channels, commandReady: false }) });
    cloud.emit({ type: 'device', device: cloudDevice({ uuid: 'strip-1', channels }) });
    const second = service.use(SWITCHES).set('strip-1', 2, false);
    await vi.advanceTimersByTimeAsync(0);

    cloud.releaseAll();
    await first;
    await vi.advanceTimersByTimeAsync(0);
    cloud.releaseAll();
    await second;
    await vi.advanceTimersByTimeAsync(0);

    const order = cloud.calls.filter((c) => c.method === 'setChannel' || c.method === 'readChannels').map((c) => c.method);
    // The startup read, both commands in the order asked, then the read that waited (channel 0 is still unknown).
    expect(order).toEqual(['readChannels', 'setChannel', 'setChannel', 'readChannels']);
  });
});
