import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '@homeops/test-kit';
import type { MerossEmulator } from '../emulator/meross-emulator.js';
import { startEmulatedSetup, type EmulatedSetup } from '../e2e/emulated-setup.js';
import type { EmulatedService } from '../e2e/service-process.js';

const PLUG = 'plug0000000000000000000000000001';
const STRIP = 'strip000000000000000000000000002';
const OLD_PLUG = 'oldplug0000000000000000000000003';
const SWITCHES = [PLUG, STRIP, OLD_PLUG];
const FLAPS = 3;

interface DeviceBody {
  uuid: string;
  controllable: boolean;
  channels: Array<{ channel: number; on: boolean | null }>;
}

// Each flap takes about the reconnect wait (CLOUD_BROKER_RECONNECT_MS, a quarter of a second here); the read
// interval outlasts the whole test.
describe('device-control under a flapping broker connection (src/main.ts against the emulated Meross cloud)', () => {
  let setup: EmulatedSetup | undefined;
  let emulator: MerossEmulator;
  let service: EmulatedService;

  beforeAll(async () => {
    setup = await startEmulatedSetup('flapping', { CLOUD_BACKGROUND_READ_INTERVAL_SECONDS: '600', CLOUD_MAX_MESSAGES_PER_MINUTE: '30' });
    ({ emulator, service } = setup);
  }, 30_000);

  afterAll(async () => {
    await setup?.stop();
  });

  const stateReads = (uuid: string) => emulator.requests('Appliance.System.All', 'GET').filter((r) => r.uuid === uuid).length;

  async function devices(): Promise<DeviceBody[]> {
    return (await service.request('GET', '/devices')).body as DeviceBody[];
  }

  async function allControllable(): Promise<void> {
    await eventually(
      async () => {
        const list = await devices();
        return SWITCHES.every((uuid) => list.find((d) => d.uuid === uuid)?.controllable);
      },
      { what: 'every switch to be controllable', timeoutMs: 20_000 },
    );
  }

  it(`reads each device's state at most once per interval across ${FLAPS} broker reconnects, and a toggle still goes through`, async () => {
    await allControllable();
    await eventually(() => SWITCHES.every((uuid) => stateReads(uuid) >= 1), 'the first state read of every switch');
    const before = Object.fromEntries(SWITCHES.map((uuid) => [uuid, stateReads(uuid)]));
    const connectionsBefore = emulator.broker.connections;

    for (let i = 0; i < FLAPS; i += 1) {
      const connections = emulator.broker.connections;
      await emulator.restartBroker(200);
      await eventually(() => emulator.broker.connections > connections, { what: 'the service to connect to the broker again', timeoutMs: 20_000 });
      await allControllable();
    }
    const shown = (await devices()).find((d) => d.uuid === PLUG)?.channels[0]?.on;
    const toggled = await service.request('POST', `/devices/${PLUG}/toggle`, { channel: 0 });
    // Counted once the toggle's own read and switch came back over the same broker connection: a state read the
    // reconnects had started would have reached the emulator before them.
    const after = Object.fromEntries(SWITCHES.map((uuid) => [uuid, stateReads(uuid)]));
    const health = await service.request('GET', '/health');

    expect(emulator.broker.connections - connectionsBefore).toBe(FLAPS);
    // Pushes may have been missed while the broker was away: the state is unknown, not the stale one.
    expect(shown).toBeNull();
    expect(toggled.status, JSON.stringify(toggled.body)).toBe(200);
    expect((toggled.body as { on: boolean }).on).toBe(emulator.device(PLUG).isOn(0));
    // No read after any reconnect; the toggle's read of the unknown state is the one more.
    expect(after).toEqual({ ...before, [PLUG]: before[PLUG]! + 1 });
    expect((health.body as { commands: { usedLastMinute: number } }).commands.usedLastMinute).toBeLessThanOrEqual(30);
    expect(service.output).toContain('meross command channel changed');
    expect(service.running).toBe(true);
  }, 90_000);
});
