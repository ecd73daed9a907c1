import { eventually, within } from '@homeops/test-kit';
import { afterEach, describe, expect, it } from 'vitest';
import { SseClient } from '../support/sse-client.js';
import { delta, LanSetup } from './lan-setup.js';

// device-control (src/main.ts) with the real meross-cloud against an emulated mts200b and mts960, over their LAN.
const MTS200 = 'mts200b00000000000000000000000b1';
const MTS960 = 'mts96000000000000000000000000b2';

let setup: LanSetup | undefined;
let events: SseClient | undefined;
afterEach(async () => {
  await events?.close();
  events = undefined;
  await setup?.stop();
  setup = undefined;
});

interface ThermostatEvent {
  uuid: string;
  source: string;
  currentTemperature: number;
  mode: string;
}

describe('thermostats through the service (src/main.ts against the emulated cloud and LAN)', { timeout: 90_000 }, () => {
  it('reads and sets them over the LAN with no cloud message, and shows a change at the device within 3 s, by push or by the LAN poll', async () => {
    setup = await LanSetup.create([
      { uuid: MTS200, name: 'Living room', type: 'mts200b', protocol: 'none', thermostat: 'mts200b' },
      { uuid: MTS960, name: 'Heater socket', type: 'mts960', protocol: 'none', thermostat: 'mts960' },
    ]);
    await setup.startService({ MEROSS_LAN_POLL_SECONDS: '0.5' });
    await setup.allOnLan();
    events = await SseClient.connect(`${setup.service!.baseUrl}/events`);
    const before = setup.counts();

    const mts200 = await setup.request('GET', `/devices/${MTS200}/thermostat`);
    const mts960 = await setup.request('GET', `/devices/${MTS960}/thermostat`);
    const target = await setup.request('PUT', `/devices/${MTS200}/thermostat/0`, { targetTemperature: 22.5 });
    const off = await setup.request('PUT', `/devices/${MTS960}/thermostat/0`, { on: false });
    const refused = await setup.request('PUT', `/devices/${MTS960}/thermostat/0`, { targetTemperature: 36.5 });
    const afterCommands = delta(setup.counts(), before);

    expect(mts200.body.thermostats).toEqual([
      expect.objectContaining({ on: true, mode: 'auto', currentTemperature: 20, targetTemperature: 21, heating: true, minTemperature: 5, maxTemperature: 35 }),
    ]);
    expect(mts200.body.thermostats[0]).toMatchObject({ overheat: { enabled: true, warning: 'ok', threshold: 33.5, temperature: 35.5 }, sensor: 'external' });
    expect(mts960.body.thermostats[0]).toMatchObject({ overheat: null, sensor: null });
    expect(mts960.body.thermostats).toEqual([
      expect.objectContaining({ on: true, mode: 'auto', currentTemperature: 17.23, targetTemperature: 18, minTemperature: 3, maxTemperature: 36 }),
    ]);
    expect(target.body).toEqual({ status: 'success', device: 'Living room', channel: 0, applied: { targetTemperature: 22.5, mode: 'manual' } });
    expect([off.status, refused.status]).toEqual([200, 400]);
    expect(setup.emulator.lanRequests('Appliance.Control.Thermostat.Mode', 'SET').map((r) => r.payload)).toEqual([
      { mode: [{ channel: 0, mode: 4, manualTemp: 225 }] },
    ]);
    expect(setup.emulator.lanRequests('Appliance.Control.Thermostat.ModeB', 'SET').map((r) => r.payload)).toEqual([{ modeB: [{ channel: 0, onoff: 2 }] }]);
    expect(afterCommands).toMatchObject({ mqttRequests: 0 });

    // The room warms: the thermostat pushes, and the event is on the stream within 3 s.
    const pushed = await within(3_000, 'the push on /events', () => {
      setup!.emulator.changeThermostat(MTS200, { currentTemp: 231 });
      return events!.waitFor('thermostat', (e: ThermostatEvent) => e.uuid === MTS200 && e.currentTemperature === 23.1, 3_000);
    });
    // Off its cloud broker its pushes reach nobody: the LAN poll (0.5 s) finds the change.
    setup.emulator.setCloudReachable(MTS960, false);
    await eventually(async () => (await setup!.device(MTS960)).transport === 'lan', 'the mts960 still on the LAN');
    const polled = await within(3_000, 'the LAN poll on /events', () => {
      setup!.emulator.changeThermostat(MTS960, { currentTemp: 1999, onoff: 1, mode: 1, working: 1 });
      return events!.waitFor('thermostat', (e: ThermostatEvent) => e.uuid === MTS960 && e.currentTemperature === 19.99, 3_000);
    });
    const read = await setup.request('GET', `/devices/${MTS960}/thermostat`);
    // The floor overheating is not in System.All's digest: the poll asks Overheat, which the mts200b declares.
    setup.emulator.setCloudReachable(MTS200, false);
    await eventually(async () => (await setup!.device(MTS200)).transport === 'lan', 'the mts200b still on the LAN');
    const overheated = await within(3_000, 'the overheat by the LAN poll on /events', () => {
      setup!.emulator.changeThermostat(MTS200, { warning: 1, currentTemp: 362 }, 'overheat');
      return events!.waitFor(
        'thermostat',
        (e: ThermostatEvent & { overheat?: { warning: string } }) => e.uuid === MTS200 && e.overheat?.warning === 'overheating',
        3_000,
      );
    });

    expect(overheated.data).toMatchObject({ overheat: { enabled: true, warning: 'overheating', threshold: 33.5, temperature: 36.2 }, sensor: 'external' });
    // Asked only of the device that declares it (inside a Multiple where the device takes one).
    const askedOverheat = setup.emulator
      .lanRequests()
      .filter((r) => JSON.stringify(r.payload).includes('Thermostat.Overheat') || r.namespace.endsWith('.Overheat'));
    expect(new Set(askedOverheat.map((r) => r.uuid))).toEqual(new Set([MTS200]));
    expect(pushed.data).toMatchObject({ source: 'push', mode: 'manual', targetTemperature: 22.5 });
    expect(polled.data).toMatchObject({ mode: 'heat', on: true });
    expect(read.body.thermostats[0]).toMatchObject({ currentTemperature: 19.99, mode: 'heat', on: true });
  });

  it('keeps polling a thermostat that answers ERROR to the Overheat it declares, one GET at a time (no Multiple)', async () => {
    setup = await LanSetup.create([{ uuid: MTS200, name: 'Living room', type: 'mts200b', protocol: 'none', thermostat: 'mts200b', multiple: false }]);
    setup.emulator.device(MTS200).thermostat!.overheatError = true;
    await setup.startService({ MEROSS_LAN_POLL_SECONDS: '0.5' });
    await setup.allOnLan();
    events = await SseClient.connect(`${setup.service!.baseUrl}/events`);
    setup.emulator.setCloudReachable(MTS200, false);
    await eventually(async () => (await setup!.device(MTS200)).transport === 'lan', 'the mts200b still on the LAN');

    const polled = await within(3_000, 'the LAN poll on /events', () => {
      setup!.emulator.changeThermostat(MTS200, { currentTemp: 244 });
      return events!.waitFor('thermostat', (e: ThermostatEvent) => e.uuid === MTS200 && e.currentTemperature === 24.4, 3_000);
    });

    expect(polled.data).toMatchObject({ source: 'push', overheat: null, sensor: 'external' });
    // The poll asked it on its own, had ERROR, and told the rest.
    expect(setup.emulator.lanRequests('Appliance.Control.Multiple')).toEqual([]);
    expect(setup.emulator.lanRequests('Appliance.Control.Thermostat.Overheat', 'GET').length).toBeGreaterThan(1);
  });
});
