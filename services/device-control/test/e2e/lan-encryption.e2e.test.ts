import { afterEach, describe, expect, it } from 'vitest';
import { BULB, DOOR, familyDevices, PLUG } from '../emulator/family-devices.js';
import { delta, LanSetup, SEALED } from './lan-setup.js';

let setup: LanSetup | undefined;
afterEach(async () => {
  await setup?.stop();
  setup = undefined;
});

// Every emulated device reports firmware `encrypt: 1`, as real firmware does whether or not it encrypts; only the
// kettle declares Appliance.Encrypt.ECDHE and reads encrypted messages (a plain one but its abilities read is reset).
const devices = () => [
  ...familyDevices().filter((d) => [PLUG, BULB, DOOR].includes(d.uuid)),
  { uuid: SEALED, name: 'Kettle', type: 'mss210', encryption: true },
];

describe('local control in the plain and the encrypted LAN variant (src/main.ts against the emulated cloud and LAN)', { timeout: 90_000 }, () => {
  it('switches plain devices that report encrypt 1 and an ECDHE device over the LAN, each in its variant at the first try, before and after a restart', async () => {
    setup = await LanSetup.create(devices());
    const emulator = setup.emulator;
    await setup.startService();
    await setup.allOnLan();

    const run = async (door: 'open' | 'close') => {
      const before = setup!.counts();
      const statuses: number[] = [];
      for (const uuid of [PLUG, BULB, SEALED, PLUG, BULB, SEALED]) statuses.push((await setup!.request('POST', `/devices/${uuid}/toggle`, {})).status);
      statuses.push((await setup!.request('POST', `/devices/${DOOR}/garage-door/0/${door}`, {})).status);
      return { statuses, cost: delta(setup!.counts(), before) };
    };
    const first = await run('open');
    await setup.stopService();
    await setup.startService();
    await setup.allOnLan();
    const second = await run('close');
    const listed = await setup.devices();

    const firmware = (uuid: string) => (emulator.device(uuid).systemAll('1', 'host').all as { system: { firmware: { encrypt?: number } } }).system.firmware;
    expect([PLUG, BULB, DOOR, SEALED].map((uuid) => firmware(uuid).encrypt)).toEqual([1, 1, 1, 1]);
    expect(first.statuses).toEqual([200, 200, 200, 200, 200, 200, 200]);
    expect(second.statuses).toEqual([200, 200, 200, 200, 200, 200, 200]);
    // No command went through the cloud.
    expect([first.cost.mqttRequests, second.cost.mqttRequests]).toEqual([0, 0]);
    expect([PLUG, BULB, SEALED].map((uuid) => emulator.device(uuid).isOn(0))).toEqual([false, false, false]);
    expect(emulator.lanRequests('Appliance.GarageDoor.State', 'SET').map((r) => (r.payload as { state: { open: number } }).state.open)).toEqual([1, 0]);
    // Each device got its own variant and read every message: plain ones never an encrypted message, and the kettle a
    // plain one only for its abilities (a plain message it cannot take would have been recorded, then reset).
    const variants = (uuid: string) => [
      ...new Set(
        emulator
          .lanRequests()
          .filter((r) => r.uuid === uuid)
          .map((r) => r.encrypted),
      ),
    ];
    expect([PLUG, BULB, DOOR].map(variants)).toEqual([[false], [false], [false]]);
    expect(
      emulator
        .lanRequests()
        .filter((r) => r.uuid === SEALED && !r.encrypted)
        .map((r) => r.namespace),
    ).toEqual(['Appliance.System.Ability']);
    expect(emulator.lanRequests('Appliance.Control.ToggleX', 'SET').filter((r) => r.uuid === SEALED && r.encrypted)).toHaveLength(4);
    expect(listed.filter((d) => d.transport !== 'lan' || d.lanProblem !== null)).toEqual([]);
  });
});
