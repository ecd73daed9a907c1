import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { adapterHostForSuite, emulatedAdapterOptions, type RemoteCloud } from '../emulator/adapter-process.js';
import { eventually } from '@homeops/test-kit';
import { createAccount, MerossEmulator, type EmulatedDeviceSpec } from '../emulator/meross-emulator.js';

// Thermostats through the real meross-cloud library against thermostats answering as meross_lan's traces show.
const MTS200 = 'mts200b00000000000000000000000a1';
const MTS960 = 'mts96000000000000000000000000a2';
const DEVICES: EmulatedDeviceSpec[] = [
  { uuid: MTS200, name: 'Living room', type: 'mts200b', protocol: 'none', thermostat: 'mts200b', firmware: '7.6.9' },
  { uuid: MTS960, name: 'Heater socket', type: 'mts960', protocol: 'none', thermostat: 'mts960', firmware: '4.2.6' },
];
const sets = (emulator: MerossEmulator, namespace: string) => emulator.requests(namespace, 'SET').map((r) => r.payload);
const refusal = (call: Promise<unknown>) =>
  call.then(
    () => null,
    (e: { code?: string }) => e,
  );

describe('thermostats (adapter against the emulated cloud)', { timeout: 30_000 }, () => {
  const suite = adapterHostForSuite();
  let emulator: MerossEmulator;
  let dir: string;
  let adapter: RemoteCloud;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'meross-thermostat-'));
    const account = createAccount();
    emulator = await MerossEmulator.start({ pki: suite.pki, account, devices: DEVICES });
    adapter = await suite.host.create(emulatedAdapterOptions(account, emulator.apiUrl, dir));
    await adapter.start();
    await eventually(async () => {
      const devices = await adapter.listDevices().catch(() => []);
      return devices.length === DEVICES.length && devices.every((d) => d.commandReady);
    }, 'every device command-ready');
  });
  afterEach(async () => {
    await adapter.stop();
    await emulator.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reads an MTS200 in tenths of °C, asking its channel by name, and lists it as a thermostat that is never switched', async () => {
    const read = await adapter.readThermostats(MTS200);
    const switched = await refusal(adapter.setChannel(MTS200, 0, true));

    expect(read).toEqual([
      {
        channel: 0,
        on: true,
        mode: 'auto',
        modes: ['heat', 'cool', 'economy', 'auto', 'manual'],
        currentTemperature: 20,
        targetTemperature: 21,
        heating: true,
        cooling: false,
        minTemperature: 5,
        maxTemperature: 35,
        overheat: { enabled: true, warning: 'ok', threshold: 33.5, temperature: 35.5 },
        sensor: 'external',
      },
    ]);
    expect(emulator.requests('Appliance.Control.Thermostat.Mode', 'GET').map((r) => r.payload)).toEqual([{ mode: [{ channel: 0 }] }]);
    expect(emulator.requests('Appliance.Control.Thermostat.Overheat', 'GET').map((r) => r.payload)).toEqual([{ overheat: [{ channel: 0 }] }]);
    expect(emulator.requests('Appliance.Control.Thermostat.Sensor', 'GET').map((r) => r.payload)).toEqual([{ sensor: [{ channel: 0 }] }]);
    expect(switched).toMatchObject({ code: 'DEVICE_NOT_CONTROLLABLE' });
    expect(emulator.requests('Appliance.Control.ToggleX')).toEqual([]);
    expect((await adapter.listDevices()).find((d) => d.uuid === MTS200)).toMatchObject({ capabilities: ['thermostat'], switchable: false });
  });

  it('sets a target on an MTS200 in auto: one SET in a list, switching it to manual, as its answer tells', async () => {
    await adapter.readThermostats(MTS200);

    const after = await adapter.setThermostat(MTS200, 0, { targetTemperature: 22.5 });
    const off = await adapter.setThermostat(MTS200, 0, { on: false });
    const heat = await adapter.setThermostat(MTS200, 0, { mode: 'heat' });

    expect(after).toMatchObject({ mode: 'manual', targetTemperature: 22.5 });
    expect(off).toMatchObject({ on: false, heating: false });
    expect(heat).toMatchObject({ mode: 'heat', targetTemperature: 21 });
    expect(sets(emulator, 'Appliance.Control.Thermostat.Mode')).toEqual([
      { mode: [{ channel: 0, mode: 4, manualTemp: 225 }] },
      { mode: [{ channel: 0, onoff: 0 }] },
      { mode: [{ channel: 0, mode: 0 }] },
    ]);
    expect(emulator.device(MTS200).thermostat!.entry).toMatchObject({ onoff: 0, mode: 0, manualTemp: 225, targetTemp: 210 });
  });

  it('reads an MTS960 in hundredths of °C with the range of its CtlRange; turns it off with onoff 2; its timer has no target', async () => {
    const read = await adapter.readThermostats(MTS960);
    const target = await adapter.setThermostat(MTS960, 0, { targetTemperature: 21.5 });
    const off = await adapter.setThermostat(MTS960, 0, { on: false });
    const timer = await adapter.setThermostat(MTS960, 0, { on: true, mode: 'timer' });

    expect(read).toEqual([
      {
        channel: 0,
        on: true,
        mode: 'auto',
        modes: ['heat', 'cool', 'auto', 'timer'],
        currentTemperature: 17.23,
        targetTemperature: 18,
        heating: true,
        cooling: false,
        minTemperature: 3,
        maxTemperature: 36,
        overheat: null,
        sensor: null,
      },
    ]);
    expect(emulator.requests('Appliance.Control.Thermostat.CtlRange', 'GET').map((r) => r.payload)).toEqual([{ ctlRange: [{ channel: 0 }] }]);
    expect(emulator.requests('Appliance.Control.Thermostat.ModeB', 'GET').map((r) => r.payload)).toEqual([{ modeB: [{ channel: 0 }] }]);
    // It declares neither overheat protection nor a sensor choice: nothing asked, null told.
    expect(emulator.requests('Appliance.Control.Thermostat.Overheat')).toEqual([]);
    expect(emulator.requests('Appliance.Control.Thermostat.Sensor')).toEqual([]);
    expect(target).toMatchObject({ mode: 'heat', targetTemperature: 21.5 });
    expect(off).toMatchObject({ on: false, heating: false });
    expect(timer).toMatchObject({ on: true, mode: 'timer', targetTemperature: null });
    expect(sets(emulator, 'Appliance.Control.Thermostat.ModeB')).toEqual([
      { modeB: [{ channel: 0, mode: 1, working: 1, targetTemp: 2150 }] },
      { modeB: [{ channel: 0, onoff: 2 }] },
      { modeB: [{ channel: 0, onoff: 1, mode: 3 }] },
    ]);
    expect(emulator.device(MTS960).thermostat!.entry).toMatchObject({ onoff: 1, mode: 3, targetTemp: 0 });
  });

  it('reads an MTS960 whose CtlRange answers an ERROR with the usual 5-35 °C range', async () => {
    emulator.device(MTS960).thermostat!.rangeError = true;

    const read = await adapter.readThermostats(MTS960);

    expect(read).toEqual([expect.objectContaining({ currentTemperature: 17.23, minTemperature: 5, maxTemperature: 35 })]);
    expect(emulator.requests('Appliance.Control.Thermostat.CtlRange', 'GET')).toHaveLength(1);
  });

  it('reads an MTS200B whose Overheat answers an ERROR with overheat null, its sensor as told', async () => {
    emulator.device(MTS200).thermostat!.overheatError = true;

    const read = await adapter.readThermostats(MTS200);

    expect(read).toEqual([expect.objectContaining({ currentTemperature: 20, overheat: null, sensor: 'external' })]);
    expect(emulator.requests('Appliance.Control.Thermostat.Overheat', 'GET')).toHaveLength(1);
  });

  it('hears the floor overheating and the sensor switched to internal as pushes of Overheat and Sensor', async () => {
    await adapter.readThermostats(MTS200);

    emulator.changeThermostat(MTS200, { warning: 1, currentTemp: 362 }, 'overheat');
    emulator.changeThermostat(MTS200, { mode: 0 }, 'sensor');
    const pushed = (check: (e: Record<string, unknown>) => boolean) =>
      adapter.events.find((e) => e.type === 'thermostat' && e.uuid === MTS200 && e.source === 'push' && check(e as never));
    await eventually(() => pushed((e) => e.sensor === 'internal') !== undefined, 'the Sensor push');

    expect(pushed(() => true)).toMatchObject({ overheat: { enabled: true, warning: 'overheating', threshold: 33.5, temperature: 36.2 }, sensor: 'external' });
    expect(pushed((e) => e.sensor === 'internal')).toMatchObject({ overheat: { warning: 'overheating' }, targetTemperature: 21 });
  });

  it("hears a change at the thermostat as a push: the room warming, the MTS960's cooling", async () => {
    await adapter.readThermostats(MTS200);
    await adapter.readThermostats(MTS960);

    emulator.changeThermostat(MTS200, { currentTemp: 223, state: 0 });
    emulator.changeThermostat(MTS960, { mode: 1, working: 2, targetTemp: 2600, state: 1 });
    await eventually(() => adapter.events.some((e) => e.type === 'thermostat' && e.uuid === MTS200 && e.currentTemperature === 22.3), 'the MTS200 push');
    await eventually(() => adapter.events.some((e) => e.type === 'thermostat' && e.uuid === MTS960 && e.mode === 'cool'), 'the MTS960 push');

    expect(adapter.events.find((e) => e.type === 'thermostat' && e.uuid === MTS200 && e.source === 'push')).toMatchObject({
      heating: false,
      targetTemperature: 21,
    });
    expect(adapter.events.find((e) => e.type === 'thermostat' && e.uuid === MTS960 && e.source === 'push')).toMatchObject({
      targetTemperature: 26,
      heating: false,
      cooling: true,
      minTemperature: 3,
    });
  });
});
