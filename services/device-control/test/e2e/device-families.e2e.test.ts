import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { adapterHostForSuite, emulatedAdapterOptions, type RemoteCloud } from '../emulator/adapter-process.js';
import { eventually } from '@homeops/test-kit';
import { BLINDS, BULB, DOOR, familyDevices, HUB, PLUG } from '../emulator/family-devices.js';
import { createAccount, MerossEmulator } from '../emulator/meross-emulator.js';

// Device families through the real meross-cloud library: a garage door opener and a roller shutter that both
// declare ToggleX too, and are never switched; a light; an energy plug; a hub with a valve and a sensor.
const DEVICES = familyDevices();
const coverEvents = (adapter: RemoteCloud) => adapter.events.filter((e) => e.type === 'cover' && e.uuid === BLINDS);

describe('device families (adapter against the emulated cloud)', { timeout: 30_000 }, () => {
  const suite = adapterHostForSuite();
  let emulator: MerossEmulator;
  let dir: string;
  let adapter: RemoteCloud;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'meross-garage-'));
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

  it("lists the opener as a garage door, never switchable, and learns each device's capabilities from its abilities", async () => {
    const before = await adapter.listDevices();
    await adapter.readGarageDoors(DOOR);
    await adapter.setChannel(PLUG, 0, true);
    const after = await adapter.listDevices();

    expect(before.find((d) => d.uuid === DOOR)).toMatchObject({ capabilities: ['garageDoor'], switchable: false });
    expect(after.find((d) => d.uuid === DOOR)).toMatchObject({ capabilities: ['garageDoor'], switchable: false });
    expect(after.find((d) => d.uuid === PLUG)).toMatchObject({ capabilities: ['switch', 'energy'], switchable: true });
    expect(
      emulator
        .requests('Appliance.System.Ability')
        .map((r) => r.uuid)
        .sort(),
    ).toEqual([DOOR, PLUG].sort());
  });

  it('refuses to switch the opener and publishes no switch message to it, though it declares ToggleX', async () => {
    const set = await adapter.setChannel(DOOR, 0, true).then(
      () => null,
      (e: { code?: string; details?: unknown }) => e,
    );
    const read = await adapter.readChannels(DOOR).then(
      () => null,
      (e: { code?: string }) => e,
    );

    expect(set).toMatchObject({ code: 'DEVICE_NOT_CONTROLLABLE' });
    expect(JSON.stringify(set)).toContain('is a garage door opener');
    // Once its abilities are known, even a state read of switches is refused.
    expect(read).toMatchObject({ code: 'DEVICE_NOT_CONTROLLABLE' });
    expect(emulator.requests('Appliance.Control.ToggleX').filter((r) => r.uuid === DOOR)).toEqual([]);
    expect(emulator.requests('Appliance.Control.Toggle').filter((r) => r.uuid === DOOR)).toEqual([]);
    expect(emulator.requests('Appliance.System.All').filter((r) => r.uuid === DOOR)).toEqual([]);
    expect(emulator.device(DOOR).isOn(0)).toBe(false);
  });

  it("opens the door: the opener's answer, then its push when the door arrives; again it is already open; the button's push is heard", async () => {
    const opening = await adapter.setGarageDoor(DOOR, 0, true);
    await eventually(() => adapter.events.some((e) => e.type === 'garageDoor' && e.uuid === DOOR && e.state === 'open'), 'the door open');
    const read = await adapter.readGarageDoors(DOOR);
    const again = await adapter.setGarageDoor(DOOR, 0, true);
    emulator.pressGarageButton(DOOR, 0);
    await eventually(() => adapter.events.some((e) => e.type === 'garageDoor' && e.state === 'closed' && e.source === 'push'), 'the door closed');

    expect(opening).toEqual({ channel: 0, state: 'opening' });
    expect(read).toEqual([{ channel: 0, state: 'open' }]);
    expect(again).toEqual({ channel: 0, state: 'open' });
    expect(emulator.requests('Appliance.GarageDoor.State', 'SET').map((r) => r.payload)).toEqual([
      { state: { channel: 0, open: 1, uuid: DOOR } },
      { state: { channel: 0, open: 1, uuid: DOOR } },
    ]);
    expect(emulator.device(DOOR).isOpen(0)).toBe(false);
  });

  it('refuses door actions on a plug without sending them', async () => {
    const failure = await adapter.setGarageDoor(PLUG, 0, true).then(
      () => null,
      (e: { code?: string }) => e,
    );

    expect(failure).toMatchObject({ code: 'DEVICE_NOT_CONTROLLABLE' });
    expect(emulator.requests('Appliance.GarageDoor.State')).toEqual([]);
  });

  it('never switches the roller shutter, though it declares ToggleX', async () => {
    const failure = await adapter.setChannel(BLINDS, 0, true).then(
      () => null,
      (e: { code?: string }) => e,
    );
    const listed = (await adapter.listDevices()).find((d) => d.uuid === BLINDS);

    expect(failure).toMatchObject({ code: 'DEVICE_NOT_CONTROLLABLE' });
    expect(JSON.stringify(failure)).toContain('is a cover');
    expect(listed).toMatchObject({ capabilities: ['cover'], switchable: false, coverPositioning: true });
    expect(emulator.requests('Appliance.Control.ToggleX').filter((r) => r.uuid === BLINDS)).toEqual([]);
  });

  it('reads the cover, sends it to a position, hears it start and arrive, and stops it mid-run', async () => {
    const first = await adapter.readCovers(BLINDS);
    await adapter.moveCover(BLINDS, 0, 60);
    await eventually(() => coverEvents(adapter).some((e) => e.type === 'cover' && e.position === 60), 'the cover at 60');
    const arrived = await adapter.readCovers(BLINDS);
    // A slow run (60 to 0 in 18 s), so the stop sent once it has left 60 lands mid-run.
    emulator.device(BLINDS).coverTravelMs = 30_000;
    await adapter.moveCover(BLINDS, 0, 0);
    await eventually(() => coverEvents(adapter).some((e) => e.type === 'cover' && e.motion === 'closing'), 'the cover closing');
    await eventually(() => emulator.device(BLINDS).coverNow() < 60, 'the cover to leave 60');
    await adapter.moveCover(BLINDS, 0, 'stop');
    await eventually(() => coverEvents(adapter).filter((e) => e.type === 'cover' && e.motion === 'idle').length >= 2, 'the cover stopped');
    const stopped = await adapter.readCovers(BLINDS);
    const stoppedAt = emulator.device(BLINDS).coverPosition;

    expect(first).toEqual([{ channel: 0, position: 0, motion: 'idle' }]);
    expect(arrived).toEqual([{ channel: 0, position: 60, motion: 'idle' }]);
    expect(stopped).toEqual([{ channel: 0, position: stoppedAt, motion: 'idle' }]);
    expect(stoppedAt).toBeGreaterThan(0);
    expect(stoppedAt).toBeLessThan(60);
    expect(emulator.device(BLINDS).coverRun).toBeNull();
    expect(emulator.requests('Appliance.RollerShutter.Position', 'SET').map((r) => r.payload)).toEqual([
      { position: { position: 60, channel: 0 } },
      { position: { position: 0, channel: 0 } },
      { position: { position: -1, channel: 0 } },
    ]);
  });

  it("reads a light's features from its abilities and its settings, sets brightness, and hears the light's pushes", async () => {
    const read = await adapter.readLight(BULB);
    await adapter.setLight(BULB, 0, { brightness: 25 });
    await eventually(() => adapter.events.some((e) => e.type === 'light' && e.uuid === BULB && e.brightness === 25), 'the light push');
    await eventually(() => adapter.events.some((e) => e.type === 'channel' && e.uuid === BULB && e.on), 'the light on');

    expect(read).toEqual([
      { channel: 0, brightness: 60, temperature: 30, rgb: 0x00ff00, supports: { brightness: true, temperature: false, rgb: true }, mode: 'rgb' },
    ]);
    expect(emulator.requests('Appliance.Control.Light', 'SET').map((r) => r.payload)).toEqual([{ light: { channel: 0, capacity: 4, luminance: 25 } }]);
    expect((await adapter.listDevices()).find((d) => d.uuid === BULB)).toMatchObject({ capabilities: ['switch', 'light'], switchable: true });
  });

  it("reads an energy plug's power in W, V and A and its days in kWh, converted from the plug's own units", async () => {
    await adapter.setChannel(PLUG, 0, true);
    const power = await adapter.readPower(PLUG);
    const days = await adapter.readDailyEnergy(PLUG);
    const door = await adapter.readPower(DOOR).then(
      () => null,
      (e: { code?: string }) => e,
    );

    expect(power).toEqual({ power: 42.5, voltage: 230.5, current: 0.184 });
    expect(days.map((d) => d.kWh)).toEqual([1.5, 1.25, 1]);
    expect(days.map((d) => d.date)).toEqual([...days.map((d) => d.date)].sort());
    expect(door).toMatchObject({ code: 'DEVICE_NOT_CONTROLLABLE' });
    expect(emulator.requests('Appliance.Control.Electricity').filter((r) => r.uuid === DOOR)).toEqual([]);
  });

  it('lists the devices behind a hub with names from the cloud, readings in °C and %, and batteries; sets a valve', async () => {
    const before = await adapter.readHub(HUB);
    await adapter.setValve(HUB, '01008C11', { on: false, targetTemperature: 18.5 });
    const after = await adapter.readHub(HUB);

    expect(before).toEqual([
      {
        id: '01008C11',
        name: 'Bedroom valve',
        kind: 'valve',
        model: 'mts100v3',
        online: true,
        battery: 90,
        temperature: 19.5,
        humidity: null,
        on: true,
        targetTemperature: 21,
        minTemperature: 5,
        maxTemperature: 35,
        leak: null,
        smoke: null,
        open: null,
      },
      {
        id: '120027D2',
        name: 'Cellar',
        kind: 'sensor',
        model: 'ms100',
        online: true,
        battery: 80,
        temperature: 19.6,
        humidity: 55.1,
        on: null,
        targetTemperature: null,
        minTemperature: null,
        maxTemperature: null,
        leak: null,
        smoke: null,
        open: null,
      },
    ]);
    emulator.pressValve(HUB, '01008C11');
    await eventually(() => adapter.events.some((e) => e.type === 'hubDevice' && e.id === '01008C11' && e.change.on === true), 'the valve push');

    expect(after[0]).toMatchObject({ on: false, targetTemperature: 18.5 });
    expect(emulator.requests('Appliance.Hub.ToggleX', 'SET').map((r) => r.payload)).toEqual([{ togglex: [{ id: '01008C11', onoff: 0 }] }]);
    expect(emulator.requests('Appliance.Hub.Mts100.Temperature', 'SET').map((r) => r.payload)).toEqual([{ temperature: [{ id: '01008C11', custom: 185 }] }]);
    expect((await adapter.listDevices()).find((d) => d.uuid === HUB)).toMatchObject({ capabilities: ['hubSensors'], switchable: false });
  });
});
