import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '@homeops/test-kit';
import { adapterHostForSuite, emulatedAdapterOptions, type RemoteCloud } from '../emulator/adapter-process.js';
import { DOOR_SENSOR, LEAK_SENSOR, SAFETY_HUB, safetyHub, SMOKE_ALARM } from '../emulator/hub-sensors.js';
import { createAccount, MerossEmulator } from '../emulator/meross-emulator.js';

// The hub's leak, smoke and door sensors through the real meross-cloud library against the emulated msh300hk.
describe('hub safety sensors (adapter against the emulated cloud)', { timeout: 30_000 }, () => {
  const suite = adapterHostForSuite();
  let emulator: MerossEmulator;
  let dir: string;
  let adapter: RemoteCloud;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'meross-sensors-'));
    const account = createAccount();
    emulator = await MerossEmulator.start({ pki: suite.pki, account, devices: [safetyHub()] });
    adapter = await suite.host.create(emulatedAdapterOptions(account, emulator.apiUrl, dir));
    await adapter.start();
    await eventually(async () => (await adapter.listDevices().catch(() => [])).some((d) => d.commandReady), 'the hub command-ready');
  });
  afterAll(async () => {
    await adapter?.stop();
    await emulator?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const pushed = (id: string) => adapter.events.flatMap((e) => (e.type === 'hubDevice' && e.id === id ? [e.change] : []));

  it('reads the door, smoke and leak sensors with their kinds, names from the cloud and states', async () => {
    const read = await adapter.readHub(SAFETY_HUB);

    expect(read.map((d) => [d.id, d.name, d.kind, d.model, d.online, d.leak, d.smoke, d.open])).toEqual([
      [DOOR_SENSOR, 'Front door', 'contact', 'ms200', true, null, null, false],
      [SMOKE_ALARM, 'Hallway smoke alarm', 'smoke', 'gs559', true, null, 'clear', null],
      [LEAK_SENSOR, 'Laundry leak sensor', 'leak', 'ms400', true, false, null, null],
    ]);
    expect((await adapter.listDevices()).find((d) => d.uuid === SAFETY_HUB)).toMatchObject({ capabilities: ['hubSensors'], switchable: false });
  });

  it("hears each sensor's push: a leak and its end, a smoke alarm, muted, a test, a fault, and a door opened", async () => {
    emulator.setLeak(SAFETY_HUB, LEAK_SENSOR, true);
    await eventually(() => pushed(LEAK_SENSOR).some((c) => c.leak === true), 'the leak push');
    emulator.setLeak(SAFETY_HUB, LEAK_SENSOR, false);
    await eventually(() => pushed(LEAK_SENSOR).some((c) => c.leak === false), 'the dry push');
    for (const [status, state] of [
      [25, 'alarm'],
      [27, 'muted'],
      [23, 'test'],
      [18, 'fault'],
      [170, 'clear'],
    ] as const) {
      emulator.setSmoke(SAFETY_HUB, SMOKE_ALARM, status);
      await eventually(() => pushed(SMOKE_ALARM).at(-1)?.smoke === state, `smoke ${state}`);
    }
    emulator.setContact(SAFETY_HUB, DOOR_SENSOR, true);
    await eventually(() => pushed(DOOR_SENSOR).some((c) => c.open === true), 'the door push');

    expect(pushed(LEAK_SENSOR)).toEqual([{ leak: true }, { leak: false }]);
    expect(pushed(SMOKE_ALARM).map((c) => c.smoke)).toEqual(['alarm', 'muted', 'test', 'fault', 'clear']);
    expect((await adapter.readHub(SAFETY_HUB)).find((d) => d.id === DOOR_SENSOR)).toMatchObject({ open: true });
  });
});
