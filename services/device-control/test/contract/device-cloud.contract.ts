import { eventually } from '@homeops/test-kit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Capability, CloudDevice, CloudEvent, DeviceCloud } from '../../src/domain/device-cloud.js';

/** The devices of a subject's account by the part they play; each starts online, switched off, its door closed. */
export interface ContractDevices {
  /** A switch with one channel. */
  plug: string;
  /** A switch with several channels. */
  strip: string;
  /** A garage door opener with one door, on channel 0. */
  garageDoor: string;
  /** A roller shutter. */
  cover: string;
  light: string;
  hub: string;
}

/** What a case does from outside the backend: the physical world and the vendor app. */
export interface ContractWorld {
  /** The device loses (or regains) its connection to the cloud. */
  setOnline(uuid: string, online: boolean): void;
  /** Someone presses the device's button: the channel flips. */
  pressButton(uuid: string, channel: number): void;
  /** Lets the doors sent moving arrive (moves the subject's clock; the emulated doors arrive by themselves). */
  finishTravel(): void;
  /** A single-channel plug joins the account; returns its uuid. */
  addPlug(): string;
  removeDevice(uuid: string): void;
  renameDevice(uuid: string, name: string): void;
  /** What reached the cloud so far, as the cloud counted it (only where `countsMessages`). */
  messagesReceived?(): { api: number; mqtt: number };
}

/** One subject: a DeviceCloud not started yet (the contract listens from before its start), its world, its end. */
export interface ContractSubject {
  cloud: DeviceCloud;
  devices: ContractDevices;
  world: ContractWorld;
  stop(): Promise<void>;
}

/** How to make a subject, and which cases apply to it. */
export interface ContractSetup {
  /**
   * The world counts every message that reached the cloud (the emulator), so the `sent` events must match it one for
   * one, logins included; otherwise every call that reaches the cloud announces at least one.
   */
  countsMessages: boolean;
  create(): Promise<ContractSubject>;
}

/** The backends' own controls that make a world, for backends that are their own world (the fake, the simulator). */
type OwnControls = Pick<ContractWorld, 'setOnline' | 'pressButton' | 'removeDevice' | 'renameDevice'>;

/** The world of a backend that has the controls itself, plus how its doors arrive and a plug joins. */
export function ownWorld(backend: OwnControls, rest: Pick<ContractWorld, 'finishTravel' | 'addPlug'>): ContractWorld {
  return {
    setOnline: (uuid, online) => backend.setOnline(uuid, online),
    pressButton: (uuid, channel) => backend.pressButton(uuid, channel),
    removeDevice: (uuid) => backend.removeDevice(uuid),
    renameDevice: (uuid, name) => backend.renameDevice(uuid, name),
    ...rest,
  };
}

const CAPABILITIES: Capability[] = ['switch', 'garageDoor', 'cover', 'light', 'energy', 'hubSensors', 'thermostat'];

/** What each role's description must say, beyond the shape every device has. */
const ROLE_SHAPES: Record<keyof ContractDevices, (d: CloudDevice) => void> = {
  plug: (d) => expect(d).toMatchObject({ switchable: true, channels: [{ channel: 0 }] }),
  strip: (d) => expect([d.switchable, d.channels.length > 1]).toEqual([true, true]),
  garageDoor: (d) => expect([d.switchable, d.capabilities.includes('garageDoor')]).toEqual([false, true]),
  cover: (d) => expect([d.switchable, d.capabilities.includes('cover')]).toEqual([false, true]),
  light: (d) => expect(d.capabilities).toContain('light'),
  hub: (d) => expect([d.switchable, d.capabilities.includes('hubSensors')]).toEqual([false, true]),
};

function expectDeviceShape(d: CloudDevice): void {
  expect(d).toMatchObject({ uuid: expect.any(String), name: expect.any(String), type: expect.any(String) });
  expect([d.online, d.commandReady, d.switchable].map((v) => typeof v)).toEqual(['boolean', 'boolean', 'boolean']);
  expect(CAPABILITIES).toEqual(expect.arrayContaining(d.capabilities));
  expect(d.switchable).toBe(d.capabilities.includes('switch'));
  expect(d.channels.length).toBeGreaterThan(0);
  for (const c of d.channels) expect([Number.isInteger(c.channel), typeof c.name]).toEqual([true, 'string']);
}

/** The behaviour of DeviceCloud the device service relies on, run against the fake, the simulator and the real library. */
export function describeDeviceCloudContract(name: string, setup: ContractSetup): void {
  describe(`${name} (DeviceCloud contract)`, () => {
    let subject: ContractSubject;
    let cloud: DeviceCloud;
    let devices: ContractDevices;
    let world: ContractWorld;
    let events: CloudEvent[];
    let unsubscribe: () => void;

    beforeEach(async () => {
      subject = await setup.create();
      ({ cloud, devices, world } = subject);
      events = [];
      unsubscribe = cloud.onEvent((event) => events.push(event));
      await cloud.start();
      await eventually(() => cloud.status().state === 'connected', 'the session to connect');
      await eventually(async () => (await cloud.listDevices()).every((d) => !d.online || d.commandReady), {
        what: 'every online device to be command-ready',
        intervalMs: 100,
      });
    }, 30_000);

    afterEach(async () => {
      unsubscribe();
      await subject.stop();
    });

    /** The events since `from` (an index into `events`), of one type. */
    const since = <T extends CloudEvent['type']>(from: number, type: T) =>
      events.slice(from).filter((e): e is Extract<CloudEvent, { type: T }> => e.type === type);
    const channelPushes = (uuid: string) => since(0, 'channel').filter((e) => e.uuid === uuid && e.source === 'push');
    const doorPushes = (uuid: string) => since(0, 'garageDoor').filter((e) => e.uuid === uuid && e.source === 'push');
    const device = async (uuid: string) => (await cloud.listDevices()).find((d) => d.uuid === uuid);

    it('start: announces the session as a session event, and status() describes it', () => {
      const status = cloud.status();

      expect(since(0, 'session').map((e) => e.status.state)).toContain('connected');
      expect(status).toMatchObject({ backend: cloud.backend, state: 'connected', lastError: null, retryAt: null, action: null });
      expect(Object.keys(status.tokenStore).sort()).toEqual(['error', 'file', 'savedAt', 'writable']);
    });

    it('listDevices: describes every device in one shape, and each family as what it is', async () => {
      const listed = await cloud.listDevices();

      for (const d of listed) expectDeviceShape(d);
      for (const [role, uuid] of Object.entries(devices) as Array<[keyof ContractDevices, string]>) {
        const found = listed.find((d) => d.uuid === uuid);
        expect(found, `${role} ${uuid}`).toMatchObject({ online: true, commandReady: true });
        ROLE_SHAPES[role](found!);
      }
    });

    it('setChannel: switches a channel, announces it as a command event before it resolves, and readChannels reads it back', async () => {
      const last = (await device(devices.strip))!.channels.at(-1)!.channel;
      const from = events.length;

      await cloud.setChannel(devices.plug, 0, true);
      await cloud.setChannel(devices.strip, last, true);
      const announced = since(from, 'channel');

      expect(announced).toEqual([
        { type: 'channel', uuid: devices.plug, channel: 0, on: true, source: 'command' },
        { type: 'channel', uuid: devices.strip, channel: last, on: true, source: 'command' },
      ]);
      expect(await cloud.readChannels(devices.plug)).toEqual([{ channel: 0, on: true }]);
      expect((await cloud.readChannels(devices.strip)).find((c) => c.channel === last)).toEqual({ channel: last, on: true });
      await cloud.setChannel(devices.plug, 0, false);
      expect(since(from, 'channel').at(-1)).toMatchObject({ uuid: devices.plug, on: false, source: 'command' });
      expect(await cloud.readChannels(devices.plug)).toEqual([{ channel: 0, on: false }]);
    });

    it('physical button: a press arrives as a push channel event, and readChannels agrees', async () => {
      world.pressButton(devices.plug, 0);

      const [push] = await eventually(() => channelPushes(devices.plug).length > 0 && channelPushes(devices.plug), 'the push');

      expect(push).toEqual({ type: 'channel', uuid: devices.plug, channel: 0, on: true, source: 'push' });
      expect(await cloud.readChannels(devices.plug)).toEqual([{ channel: 0, on: true }]);
    });

    it('presence: going offline is one online event, a device event only to announce a changed link, commandReady unchanged; commands are refused, sending nothing', async () => {
      const before = (await device(devices.plug))!;
      const from = events.length;

      world.setOnline(devices.plug, false);
      await eventually(() => since(from, 'online').length > 0, 'the online event');
      const after = (await device(devices.plug))!;
      const quiet = events.length;
      const refusals = [cloud.setChannel(devices.plug, 0, true), cloud.readChannels(devices.plug)];

      await Promise.all(refusals.map((refused) => expect(refused).rejects.toMatchObject({ code: 'DEVICE_NOT_CONTROLLABLE' })));
      expect(since(from, 'online')).toEqual([expect.objectContaining({ type: 'online', uuid: devices.plug, online: false })]);
      expect(since(from, 'online')[0]!.upgrading ?? false).toBe(false);
      // A backend with LAN links says when the way it reaches the device changed (its pushes stop: it is polled).
      const sameButLink = (d: CloudDevice) => ({ ...d, link: undefined, online: undefined });
      for (const { device: changed } of since(from, 'device').filter((e) => e.device.uuid === devices.plug)) {
        expect(sameButLink(changed)).toEqual(sameButLink(before));
        expect(changed.link).not.toEqual(before.link);
      }
      expect(after).toMatchObject({ online: false, commandReady: before.commandReady });
      expect(since(quiet, 'sent')).toEqual([]);
    });

    it('presence: a device back online is one online event, and takes commands again', async () => {
      world.setOnline(devices.plug, false);
      await eventually(() => since(0, 'online').length === 1, 'the offline event');

      world.setOnline(devices.plug, true);
      await eventually(() => since(0, 'online').length === 2, 'the online event');
      await cloud.setChannel(devices.plug, 0, true);

      expect(since(0, 'online').map((e) => [e.uuid, e.online])).toEqual([
        [devices.plug, false],
        [devices.plug, true],
      ]);
      expect(await device(devices.plug)).toMatchObject({ online: true, commandReady: true });
      expect(await cloud.readChannels(devices.plug)).toEqual([{ channel: 0, on: true }]);
    });

    it('unknown uuid: every device call answers DEVICE_NOT_FOUND, sending nothing', async () => {
      const from = events.length;
      const calls: Array<Promise<unknown>> = [cloud.readChannels('no-such-device'), cloud.setChannel('no-such-device', 0, true)];
      calls.push(cloud.readGarageDoors('no-such-device'), cloud.setGarageDoor('no-such-device', 0, true));

      await Promise.all(calls.map((call) => expect(call).rejects.toMatchObject({ code: 'DEVICE_NOT_FOUND' })));
      expect(since(from, 'sent')).toEqual([]);
    });

    it('not a switch: a switch command to a garage door or a cover is refused with DEVICE_NOT_CONTROLLABLE, and nothing moves', async () => {
      await expect(cloud.setChannel(devices.garageDoor, 0, true)).rejects.toMatchObject({ code: 'DEVICE_NOT_CONTROLLABLE' });
      await expect(cloud.setChannel(devices.cover, 0, true)).rejects.toMatchObject({ code: 'DEVICE_NOT_CONTROLLABLE' });

      expect(await cloud.readGarageDoors(devices.garageDoor)).toEqual([{ channel: 0, state: 'closed' }]);
      expect(since(0, 'channel')).toEqual([]);
    });

    it('garage door: a command answers where the door goes (or already is), and its arrival is pushed', async () => {
      const door = devices.garageDoor;
      const arrived = async (state: 'open' | 'closed') => {
        world.finishTravel();
        await eventually(() => doorPushes(door).some((e) => e.state === state), `the door to arrive ${state}`);
      };

      expect(await cloud.setGarageDoor(door, 0, true)).toEqual({ channel: 0, state: 'opening' });
      await arrived('open');
      expect(await cloud.readGarageDoors(door)).toEqual([{ channel: 0, state: 'open' }]);
      expect(await cloud.setGarageDoor(door, 0, true)).toEqual({ channel: 0, state: 'open' });
      expect(await cloud.setGarageDoor(door, 0, false)).toEqual({ channel: 0, state: 'closing' });
      await arrived('closed');
      expect(await cloud.readGarageDoors(door)).toEqual([{ channel: 0, state: 'closed' }]);
      expect(doorPushes(door).map((e) => [e.channel, e.state])).toEqual([
        [0, 'open'],
        [0, 'closed'],
      ]);
    });

    it('account changes: the next listDevices shows a device added, removed or renamed; a removed one is DEVICE_NOT_FOUND', async () => {
      const added = world.addPlug();
      world.removeDevice(devices.strip);
      world.renameDevice(devices.plug, 'Renamed lamp');

      const listed = await cloud.listDevices();
      const ready = await eventually(async () => (await device(added))?.commandReady && (await device(added)), 'the added plug to be command-ready');
      await cloud.setChannel(added, 0, true);

      expect(listed.map((d) => d.uuid)).toContain(added);
      expect(listed.map((d) => d.uuid)).not.toContain(devices.strip);
      expect(listed.find((d) => d.uuid === devices.plug)?.name).toBe('Renamed lamp');
      expectDeviceShape(ready);
      expect(ready).toMatchObject({ online: true, switchable: true });
      await expect(cloud.setChannel(devices.strip, 0, true)).rejects.toMatchObject({ code: 'DEVICE_NOT_FOUND' });
    });

    it('sent: the device list announces its messages as through the API, a device read and command theirs as to the device', async () => {
      /** How the messages a call announced went: `api`, or `device` (MQTT, or the LAN where a backend has one). */
      const ways = async (call: () => Promise<unknown>) => {
        const from = events.length;
        await call();
        return [...new Set(since(from, 'sent').map((e) => (e.via === 'api' ? 'api' : 'device')))];
      };

      expect(await ways(() => cloud.listDevices())).toEqual(['api']);
      expect(await ways(() => cloud.readChannels(devices.plug))).toEqual(['device']);
      expect(await ways(() => cloud.setChannel(devices.plug, 0, true))).toEqual(['device']);
    });

    it('abilitiesKnown: a family call sends one message more while they are unknown (the read), none once it is done', async () => {
      /** The messages (cloud or LAN) a call announced. */
      const sentBy = async (call: () => Promise<unknown>) => {
        const from = events.length;
        await call();
        return since(from, 'sent').length;
      };

      for (const [uuid, call] of [
        [devices.plug, () => cloud.setChannel(devices.plug, 0, true)],
        [devices.light, () => cloud.setLight(devices.light, 0, { brightness: 40 })],
      ] as const) {
        const before = cloud.abilitiesKnown(uuid);
        expect(await sentBy(call), uuid).toBe(before ? 1 : 2);
        expect(cloud.abilitiesKnown(uuid), uuid).toBe(true);
        expect(await sentBy(call), uuid).toBe(1);
      }
    });

    // Only a backend whose cloud counts what it receives has this case; the others never register it.
    if (setup.countsMessages)
      it('sent: one event per message the cloud received, the login included', async () => {
        await cloud.readChannels(devices.plug);
        await cloud.setChannel(devices.plug, 0, true);
        await cloud.readGarageDoors(devices.garageDoor);

        const counted = () => ({ api: since(0, 'sent').filter((e) => e.via === 'api').length, mqtt: since(0, 'sent').filter((e) => e.via === 'mqtt').length });
        await eventually(() => counted().mqtt === world.messagesReceived?.().mqtt, 'the requests to reach the devices');

        expect(counted()).toEqual(world.messagesReceived?.());
      });
  });
}
