import { eventually, within } from '@homeops/test-kit';
import { afterEach, describe, expect, it } from 'vitest';
import { SseClient } from '../support/sse-client.js';
import { BLINDS, BULB, delta, DOOR, LanSetup, PLUG, STRIP } from './lan-setup.js';

let setup: LanSetup | undefined;
let events: SseClient | undefined;
afterEach(async () => {
  await events?.close();
  events = undefined;
  await setup?.stop();
  setup = undefined;
});

/** The poll interval of these tests: the bound on how old a state may be while no push arrives. */
const POLL_SECONDS = 0.5;

describe('local control through a cloud outage (src/main.ts against the emulated cloud and LAN)', { timeout: 90_000 }, () => {
  it('keeps commanding every family over the LAN through a lock-out and a cloud that refuses connections, and shows physical changes by polling', async () => {
    setup = await LanSetup.create();
    await setup.startService({ MEROSS_LAN_POLL_SECONDS: String(POLL_SECONDS) });
    await setup.allOnLan();
    const beforeOutage = setup.counts();

    // A lock-out code on the next API call, then the whole cloud refusing connections.
    setup.emulator.lockOut(1035);
    await setup.request('POST', '/devices/sync');
    await eventually(async () => (await setup!.health()).body.cloud.state === 'locked-out', 'the lock-out');
    await setup.emulator.cloudDown();
    events = await SseClient.connect(`${setup.service!.baseUrl}/events`);

    const answers = [
      await setup.request('POST', `/devices/${PLUG}/toggle`, {}),
      await setup.request('PUT', `/devices/${STRIP}/channels/3`, { on: true }),
      await setup.request('POST', `/devices/${DOOR}/garage-door/0/open`, {}),
      await setup.request('POST', `/devices/${BLINDS}/cover/0/open`, {}),
      await setup.request('PUT', `/devices/${BULB}/light/0`, { brightness: 30 }),
    ];
    const plugAfterToggle = setup.emulator.device(PLUG).isOn(0);
    // Someone presses the strip's button: its push reaches nobody; the next LAN poll finds it.
    // Within the poll interval (plus one LAN round trip and the time to read the stream).
    const heard = await within(POLL_SECONDS * 1000 + 1_500, 'the press heard by the next LAN poll', () => {
      setup!.emulator.pressButton(STRIP, 1);
      return events!.waitFor('channel', (e: { uuid: string; channel: number; on: boolean }) => e.uuid === STRIP && e.channel === 1 && e.on, 5_000);
    });
    const listed = await setup.device(STRIP);
    const health = (await setup.health()).body;

    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
    expect(plugAfterToggle).toBe(true);
    expect(setup.emulator.device(STRIP).isOn(3)).toBe(true);
    await eventually(() => setup!.emulator.device(DOOR).isOpen(0), 'the door open');
    expect(setup.emulator.device(BULB).light.luminance).toBe(30);
    expect(heard.data).toMatchObject({ source: 'push' });
    expect(listed.channels.find((c) => c.channel === 1)?.on).toBe(true);
    expect(health).toMatchObject({ status: 'ok', cloud: { state: 'locked-out' }, lan: { summary: '7 of 7 devices', unreachable: 0 } });
    // Nothing reached the cloud during the outage but the one sync that met the lock-out.
    expect(delta(setup.counts(), beforeOutage)).toMatchObject({ signIn: 0, mqttRequests: 0, devList: 1 });

    // The cloud comes back: the session waits out its lock-out (1035: an hour) and signs in at most once.
    await setup.emulator.cloudUp();
    const toggleAfterReturn = await setup.request('POST', `/devices/${PLUG}/toggle`, {});
    expect(toggleAfterReturn.status).toBe(200);
    expect(delta(setup.counts(), beforeOutage).signIn).toBeLessThanOrEqual(1);
  });

  it('starts while the cloud refuses connections, lists the devices of the last run and controls them over the LAN; one sign-in at most when the cloud returns', async () => {
    setup = await LanSetup.create();
    await setup.startService();
    await setup.allOnLan();
    await setup.stopService();
    await setup.emulator.cloudDown();
    const beforeStart = setup.counts();

    await setup.startService({ CLOUD_REQUEST_TIMEOUT_MS: '1000' });
    const listed = await eventually(async () => {
      const res = await setup!.request('GET', '/devices');
      return res.status === 200 ? (res.body as Array<{ uuid: string; transport: string; online: boolean }>) : null;
    }, 'the stored device list');
    const toggled = await setup.request('POST', `/devices/${PLUG}/toggle`, {});
    const door = await setup.request('POST', `/devices/${DOOR}/garage-door/0/open`, {});
    const health = (await setup.health()).body;

    expect(listed.map((d) => d.uuid).sort()).toEqual([...setup.emulator.devices.keys()].sort());
    expect(listed.filter((d) => d.transport !== 'lan' || !d.online)).toEqual([]);
    expect([toggled.status, door.status]).toEqual([200, 200]);
    expect(setup.emulator.device(PLUG).isOn(0)).toBe(true);
    await eventually(() => setup!.emulator.device(DOOR).isOpen(0), 'the door open');
    expect(health).toMatchObject({ status: 'ok', sync: { ok: false, source: 'stored' }, lan: { summary: '7 of 7 devices' } });
    expect(health.cloud.state).not.toBe('connected');

    await setup.emulator.cloudUp();
    await eventually(async () => (await setup!.health()).body.sync.source === 'cloud', { what: 'the list from the cloud again', timeoutMs: 60_000 });
    // The saved token still works: the session came back without a sign-in, and the devices stayed on the LAN.
    expect(delta(setup.counts(), beforeStart).signIn).toBeLessThanOrEqual(1);
    expect((await setup.devices()).every((d) => d.transport === 'lan')).toBe(true);
  });
});
