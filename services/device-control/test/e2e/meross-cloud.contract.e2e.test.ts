import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe } from 'vitest';
import type { CloudEvent, DeviceCloud } from '../../src/domain/device-cloud.js';
import { describeDeviceCloudContract } from '../contract/device-cloud.contract.js';
import { adapterHostForSuite, emulatedAdapterOptions, type RemoteCloud } from '../emulator/adapter-process.js';
import { createAccount, MerossEmulator, standardDevices, type EmulatedDeviceSpec } from '../emulator/meross-emulator.js';

// The real meross-cloud library (MerossCloud in the adapter process) against the emulated cloud: the truth the fake
// and the simulator are held to.
const [PLUG, STRIP, , HUB] = standardDevices().map((d) => d.uuid);
const DOOR = 'door0000000000000000000000000005';
const BLINDS = 'blinds00000000000000000000000006';
const BULB = 'bulb0000000000000000000000000007';
const ADDED = 'added000000000000000000000000009';
const DEVICES: EmulatedDeviceSpec[] = [
  ...standardDevices(),
  { uuid: DOOR, name: 'Garage', type: 'msg100', garageDoor: true },
  { uuid: BLINDS, name: 'Blinds', type: 'mrs100', cover: true },
  { uuid: BULB, name: 'Bulb', type: 'msl430', lightCapacity: 7 },
];

/**
 * A MerossCloud in the adapter process as a DeviceCloud: calls over IPC, events as they arrive, status() as last
 * announced (a session event carries every change of state).
 */
async function asDeviceCloud(remote: RemoteCloud): Promise<DeviceCloud> {
  let status = await remote.status();
  const listeners = new Set<(event: CloudEvent) => void>();
  // AdapterHost hands each event over by pushing it onto remote.events: that push is where it arrives.
  const push = remote.events.push.bind(remote.events);
  remote.events.push = (...arrived: CloudEvent[]) => {
    for (const event of arrived) {
      if (event.type === 'session') status = event.status;
      for (const listener of listeners) listener(event);
    }
    return push(...arrived);
  };
  // abilitiesKnown is synchronous: what the adapter answered after the device's last call (none yet: a fresh adapter knows none).
  const known = new Set<string>();
  const learning = <T>(uuid: string, call: Promise<T>): Promise<T> =>
    call.finally(async () => {
      if (await remote.abilitiesKnown(uuid)) known.add(uuid);
      else known.delete(uuid);
    });
  return {
    backend: 'meross',
    status: () => status,
    abilitiesKnown: (uuid) => known.has(uuid),
    onEvent(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    start: () => remote.start(),
    stop: () => remote.stop(),
    listDevices: () => remote.listDevices(),
    readChannels: (uuid) => learning(uuid, remote.readChannels(uuid)),
    setChannel: (uuid, channel, on) => learning(uuid, remote.setChannel(uuid, channel, on)),
    readGarageDoors: (uuid) => learning(uuid, remote.readGarageDoors(uuid)),
    setGarageDoor: (uuid, channel, open) => learning(uuid, remote.setGarageDoor(uuid, channel, open)),
    readCovers: (uuid) => learning(uuid, remote.readCovers(uuid)),
    moveCover: (uuid, channel, target) => learning(uuid, remote.moveCover(uuid, channel, target)),
    readLight: (uuid) => learning(uuid, remote.readLight(uuid)),
    setLight: (uuid, channel, change) => learning(uuid, remote.setLight(uuid, channel, change)),
    readPower: (uuid) => learning(uuid, remote.readPower(uuid)),
    readDailyEnergy: (uuid) => learning(uuid, remote.readDailyEnergy(uuid)),
    readHub: (uuid) => learning(uuid, remote.readHub(uuid)),
    setValve: (uuid, id, change) => learning(uuid, remote.setValve(uuid, id, change)),
    readThermostats: (uuid) => learning(uuid, remote.readThermostats(uuid)),
    setThermostat: (uuid, channel, change) => learning(uuid, remote.setThermostat(uuid, channel, change)),
    submitMfaCode: (code) => remote.submitMfaCode(code),
  };
}

describe('MerossCloud on the emulated cloud', { timeout: 30_000 }, () => {
  const suite = adapterHostForSuite();

  describeDeviceCloudContract('MerossCloud', {
    countsMessages: true,
    async create() {
      const dir = mkdtempSync(join(tmpdir(), 'meross-contract-'));
      const account = createAccount();
      const emulator = await MerossEmulator.start({ pki: suite.pki, account, devices: DEVICES });
      const remote = await suite.host.create(emulatedAdapterOptions(account, emulator.apiUrl, dir));
      return {
        cloud: await asDeviceCloud(remote),
        devices: { plug: PLUG!, strip: STRIP!, garageDoor: DOOR, cover: BLINDS, light: BULB, hub: HUB! },
        world: {
          setOnline: (uuid, online) => emulator.setOnline(uuid, online),
          pressButton: (uuid, channel) => emulator.pressButton(uuid, channel),
          // The emulated doors arrive by themselves, after their travel time.
          finishTravel: () => undefined,
          addPlug: () => {
            emulator.addDevice({ uuid: ADDED, name: 'Added plug', type: 'mss110' });
            return ADDED;
          },
          removeDevice: (uuid) => emulator.removeDevice(uuid),
          renameDevice: (uuid, name) => void (emulator.device(uuid).name = name),
          messagesReceived: () => ({ api: emulator.messageCounts().api, mqtt: emulator.messageCounts().mqttRequests }),
        },
        async stop() {
          await remote.stop();
          await emulator.stop();
          rmSync(dir, { recursive: true, force: true });
        },
      };
    },
  });
});
