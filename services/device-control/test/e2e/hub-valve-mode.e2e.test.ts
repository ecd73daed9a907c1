import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { adapterHostForSuite, emulatedAdapterOptions, type RemoteCloud } from '../emulator/adapter-process.js';
import { eventually } from '@homeops/test-kit';
import { createAccount, MerossEmulator } from '../emulator/meross-emulator.js';

// A target change sets the custom target and, only when the valve is in another mode, the custom mode (issue 23, item 5).
const HUB = 'hub00000000000000000000000000008';
const VALVE = '01008C11';
const modeRequests = (emulator: MerossEmulator) => emulator.requests('Appliance.Hub.Mts100.Mode', 'SET').map((r) => r.payload);

describe('a valve target change (adapter against the emulated cloud)', { timeout: 30_000 }, () => {
  const suite = adapterHostForSuite();
  let emulator: MerossEmulator;
  let dir: string;
  let adapter: RemoteCloud;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'meross-valve-'));
    const account = createAccount();
    const hubDevices = [{ id: VALVE, name: 'Bedroom valve', kind: 'valve' as const }];
    emulator = await MerossEmulator.start({ pki: suite.pki, account, devices: [{ uuid: HUB, name: 'Hub', type: 'msh300', protocol: 'none', hubDevices }] });
    adapter = await suite.host.create(emulatedAdapterOptions(account, emulator.apiUrl, dir));
    await adapter.start();
    await eventually(async () => (await adapter.listDevices().catch(() => [])).some((d) => d.commandReady), 'the hub command-ready');
  });
  afterEach(async () => {
    await adapter.stop();
    await emulator.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('sends no mode message when the valve was read in the custom mode', async () => {
    await adapter.readHub(HUB);

    await adapter.setValve(HUB, VALVE, { targetTemperature: 18.5 });

    expect(emulator.requests('Appliance.Hub.Mts100.Temperature', 'SET').map((r) => r.payload)).toEqual([{ temperature: [{ id: VALVE, custom: 185 }] }]);
    expect(modeRequests(emulator)).toEqual([]);
    expect(emulator.device(HUB).hubDevices[0]).toMatchObject({ custom: 185, mode: 0 });
  });

  it('sets the custom mode once when the valve was put in another mode, and not again for the next target', async () => {
    await adapter.readHub(HUB);
    emulator.setValveMode(HUB, VALVE, 3);
    // Pushes arrive in order: once the valve turned by hand is heard of, so is the mode change before it.
    emulator.pressValve(HUB, VALVE);
    await eventually(() => adapter.events.some((e) => e.type === 'hubDevice' && e.id === VALVE), 'the pushes');

    await adapter.setValve(HUB, VALVE, { targetTemperature: 18.5 });
    await adapter.setValve(HUB, VALVE, { targetTemperature: 19 });

    expect(modeRequests(emulator)).toEqual([{ mode: [{ id: VALVE, state: 0 }] }]);
    expect(emulator.requests('Appliance.Hub.Mts100.Temperature', 'SET')).toHaveLength(2);
    expect(emulator.device(HUB).hubDevices[0]).toMatchObject({ custom: 190, mode: 0 });
  });

  it('sets the mode when it is not known (no read yet in this run)', async () => {
    await adapter.setValve(HUB, VALVE, { targetTemperature: 18.5 });

    expect(modeRequests(emulator)).toEqual([{ mode: [{ id: VALVE, state: 0 }] }]);
  });
});
