import { eventually } from '@homeops/test-kit';
import { afterEach, describe, expect, it } from 'vitest';
import { BLINDS, BULB, delta, DOOR, HUB, LanSetup, PLUG, SEALED, STRIP, VALVE } from './lan-setup.js';

let setup: LanSetup | undefined;
afterEach(async () => {
  await setup?.stop();
  setup = undefined;
});

describe('local control: what the cloud sees (src/main.ts against the emulated cloud and LAN)', { timeout: 120_000 }, () => {
  it('learns every address once through the cloud (one System.All per device), then keeps them across a restart', async () => {
    setup = await LanSetup.create();
    await setup.startService();

    await setup.allOnLan();
    const firstRun = setup.counts();
    const learnt = setup.emulator.requests('Appliance.System.All').map((r) => r.uuid);
    await setup.stopService();
    await setup.startService();
    await setup.allOnLan();
    const listed = await setup.devices();

    // Sign-in, device list, the hub's sub-devices; one broker connection; one System.All per device through the cloud.
    expect(firstRun).toMatchObject({ signIn: 1, mqttConnections: 1 });
    expect(learnt.sort()).toEqual([...setup.emulator.devices.keys()].sort());
    expect(firstRun.mqttRequests).toBe(setup.emulator.devices.size);
    expect(listed.find((d) => d.uuid === PLUG)?.address).toBe(setup.emulator.lanHost(PLUG));
    // The restart reused the token and the addresses: no sign-in, nothing to devices through the cloud.
    expect(delta(setup.counts(), firstRun)).toMatchObject({ signIn: 0, mqttRequests: 0 });
  });

  it('200 toggles and an hour of LAN polling cost no cloud message beyond the device list and the MQTT connection', async () => {
    setup = await LanSetup.create();
    await setup.startService();
    await setup.allOnLan();
    await setup.stopService();
    const before = setup.counts();
    await setup.startService({ MEROSS_LAN_POLL_SECONDS: '0.1' });
    await setup.allOnLan();

    const statuses: number[] = [];
    const switches = [
      [PLUG, 0],
      [STRIP, 1],
      [STRIP, 2],
      [BULB, 0],
      [SEALED, 0],
    ] as const;
    for (let i = 0; i < 200; i += 1) {
      const [uuid, channel] = switches[i % switches.length]!;
      statuses.push((await setup.request('POST', `/devices/${uuid}/toggle`, { channel })).status);
    }
    const families = [
      await setup.request('POST', `/devices/${DOOR}/garage-door/0/open`, {}),
      await setup.request('POST', `/devices/${BLINDS}/cover/0/open`, {}),
      await setup.request('PUT', `/devices/${BULB}/light/0`, { brightness: 40 }),
      await setup.request('PUT', `/devices/${HUB}/hub/${VALVE}`, { on: false, targetTemperature: 19.5 }),
      await setup.request('GET', `/devices/${PLUG}/energy`),
    ];
    const afterCommands = setup.counts();
    // An hour of polls at the default 30 s is 120 per device: every device leaves its cloud broker (the cloud then
    // reports it offline and no push comes), so the service reads each over the LAN every 0.1 s here (the least allowed).
    const polled = () =>
      setup!.emulator.lanRequests().filter((r) => (r.at > Date.now() - 3_600_000 && r.method !== 'SET') || r.namespace === 'Appliance.Control.Multiple');
    const pollsBefore = polled().length;
    for (const uuid of setup.emulator.devices.keys()) setup.emulator.setCloudReachable(uuid, false);
    await eventually(() => polled().length - pollsBefore >= 120 * setup!.emulator.devices.size, {
      what: 'an hour of polls',
      timeoutMs: 90_000,
      intervalMs: 200,
    });
    const cost = delta(setup.counts(), before);

    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    expect(families.map((r) => [r.status, r.status === 200 ? null : r.body])).toEqual([200, 200, 200, 200, 200].map((s) => [s, null]));
    expect(delta(afterCommands, before)).toMatchObject({ signIn: 0, mqttRequests: 0 });
    // The restart's one token check (devList) and the hub's sub-device names; one broker connection; nothing else.
    expect(cost).toMatchObject({ signIn: 0, devList: 1, mqttRequests: 0, mqttConnections: 1 });
    expect(cost.api).toBe(2);
    const health = (await setup.health()).body;
    expect(health.budget.sent).toMatchObject({ mqtt: 0, lan: expect.any(Number) });
    expect(health.budget.sent.lan).toBeGreaterThanOrEqual(205 + 120 * 7);
  });
});
