import { AppError, ManualClock } from '@homeops/common';
import { afterEach, describe, expect, it } from 'vitest';
import type { CoverReading } from '../../src/families/cover/domain/cover.types.js';
import type { GarageDoorReading } from '../../src/families/garage-door/domain/garage-door.types.js';
import type { HubSubDeviceReading, ValveChange } from '../../src/families/hub/domain/hub.types.js';
import type { LightChange, LightReading } from '../../src/families/light/domain/light.types.js';
import type { ThermostatReading } from '../../src/families/thermostat/domain/thermostat.types.js';
import { THERMOSTATS } from '../../src/families/thermostat/domain/thermostats.js';
import { cloudDevice, FakeDeviceCloud, garageDoorOpener, hub, rollerShutter, smartBulb, thermostat } from '../fakes/fake-device-cloud.js';
import { LanFakeCloud, lanLink } from '../meross/lan-fake-cloud.js';
import { buildTestApp, type TestApp } from '../support/test-app.js';
import { COVERS } from '../../src/families/cover/domain/covers.js';
import { GARAGE_DOORS } from '../../src/families/garage-door/domain/garage-doors.js';
import { HUBS } from '../../src/families/hub/domain/hubs.js';
import { LIGHTS } from '../../src/families/light/domain/lights.js';
import { SWITCHES } from '../../src/families/switch/domain/switches.js';

const PLUG = 'plug-1';
const DOOR = 'door-1';
const BLINDS = 'blinds-1';
const HUB = 'hub-1';
const BULB = 'bulb-1';
const MTS = 'mts-1';
const LIMIT = 15;

/** Messages of the account the service did not send (the phone app, another integration). */
function sendElsewhere(cloud: FakeDeviceCloud, count: number): void {
  for (let i = 0; i < count; i += 1) announce(cloud, 'elsewhere');
}

/** One message through the cloud, announced as the adapter does. */
function announce(cloud: FakeDeviceCloud, what: string): void {
  cloud.sentCount += 1;
  cloud.emit({ type: 'sent', via: 'mqtt', what });
}

/**
 * Sends as many messages as the Meross adapter does: the abilities (Appliance.System.Ability) before a device's first
 * family call (a switch or light command, a light read, a door, cover or hub call; never a switch's state read), a
 * cover read in two, a hub read in three, an MTS200B read in three (Mode, Overheat, Sensor), a valve target as target
 * and mode (the mode unknown here).
 */
class MerossCountingCloud extends FakeDeviceCloud {
  private readonly knownAbilities = new Set<string>();

  override abilitiesKnown(uuid: string): boolean {
    return this.knownAbilities.has(uuid);
  }

  /** New firmware: the adapter drops the abilities it knew and reads them again before the next family call. */
  forgetAbilities(uuid: string): void {
    this.knownAbilities.delete(uuid);
  }

  override async setChannel(uuid: string, channel: number, on: boolean): Promise<void> {
    this.firstCall(uuid);
    return super.setChannel(uuid, channel, on);
  }

  override async readLight(uuid: string): Promise<LightReading[]> {
    this.firstCall(uuid);
    return super.readLight(uuid);
  }

  override async setLight(uuid: string, channel: number, change: LightChange): Promise<void> {
    this.firstCall(uuid);
    return super.setLight(uuid, channel, change);
  }

  override async readGarageDoors(uuid: string): Promise<GarageDoorReading[]> {
    this.firstCall(uuid);
    return super.readGarageDoors(uuid);
  }

  override async setGarageDoor(uuid: string, channel: number, open: boolean): Promise<GarageDoorReading> {
    this.firstCall(uuid);
    return super.setGarageDoor(uuid, channel, open);
  }

  override async readCovers(uuid: string): Promise<CoverReading[]> {
    this.firstCall(uuid, 1);
    return super.readCovers(uuid);
  }

  override async moveCover(uuid: string, channel: number, target: number | 'stop'): Promise<void> {
    this.firstCall(uuid);
    return super.moveCover(uuid, channel, target);
  }

  override async readHub(uuid: string): Promise<HubSubDeviceReading[]> {
    this.firstCall(uuid, 2);
    return super.readHub(uuid);
  }

  override async readThermostats(uuid: string): Promise<ThermostatReading[]> {
    this.firstCall(uuid, 2);
    return super.readThermostats(uuid);
  }

  override async setValve(uuid: string, id: string, change: ValveChange): Promise<void> {
    this.firstCall(uuid, (change.on !== undefined ? 1 : 0) + (change.targetTemperature !== undefined ? 2 : 0) - 1);
    return super.setValve(uuid, id, change);
  }

  /** The messages beyond the one the fake announces for the call itself, and the abilities the first time. */
  private firstCall(uuid: string, more = 0): void {
    if (!this.knownAbilities.has(uuid)) announce(this, 'Appliance.System.Ability');
    this.knownAbilities.add(uuid);
    for (let i = 0; i < more; i += 1) announce(this, uuid);
  }
}

/**
 * The LAN fake with the adapter's abilities read: a switch command's first message, over the device's transport, so
 * through the cloud once its LAN address stopped answering.
 */
class LanMerossCountingCloud extends LanFakeCloud {
  private readonly knownAbilities = new Set<string>();

  override abilitiesKnown(uuid: string): boolean {
    return this.knownAbilities.has(uuid);
  }

  override async setChannel(uuid: string, channel: number, on: boolean): Promise<void> {
    if (this.linkOf(uuid)?.transport === 'cloud' && !this.knownAbilities.has(uuid)) {
      announce(this, 'Appliance.System.Ability');
      this.knownAbilities.add(uuid);
    }
    return super.setChannel(uuid, channel, on);
  }
}

describe('the first call to a device of every family, within a budget of 15 messages a minute', () => {
  let built: TestApp | undefined;
  afterEach(async () => {
    await built?.close();
    built = undefined;
  });

  /** The service with `used` of the minute's 15 messages already sent (the device list counts one). */
  async function withUsed(used: number) {
    const clock = new ManualClock(Date.parse('2026-11-24T10:00:00.000Z'));
    const cloud = new MerossCountingCloud([
      cloudDevice({ uuid: PLUG }),
      garageDoorOpener({ uuid: DOOR }),
      rollerShutter({ uuid: BLINDS }),
      hub({ uuid: HUB }),
      smartBulb({ uuid: BULB }),
      thermostat({ uuid: MTS }),
    ]);
    built = await buildTestApp({ cloud, clock, service: { maxMessagesPerMinute: LIMIT, maxMessagesPerHour: 180 } });
    sendElsewhere(cloud, used - cloud.sentCount);
    expect(cloud.sentCount).toBe(used);
    return { cloud, devices: built.devices };
  }

  const refusal = (err: unknown) => (err instanceof AppError ? err.code : err);

  it('arriving together with 4 sent, the door and the cover go out (6 messages) and the hub target is refused: 10 sent, never 16', async () => {
    const { cloud, devices } = await withUsed(4);

    const outcomes = await Promise.allSettled([
      devices.use(GARAGE_DOORS).set(DOOR, 0, 'open'),
      devices.use(COVERS).set(BLINDS, 0, { position: 50 }),
      devices.use(HUBS).setValve(HUB, 'valve-1', { targetTemperature: 19.5 }),
    ]);

    expect(outcomes.map((o) => (o.status === 'fulfilled' ? 'sent' : refusal(o.reason)))).toEqual(['sent', 'sent', 'COMMAND_BUDGET_EXHAUSTED']);
    expect(cloud.sentCount).toBe(10);
    expect(cloud.callsOf('setValve')).toEqual([]);
  });

  it('refuses the first open of a door with 14 sent (it takes two: abilities and command), and sends it with 13', async () => {
    const full = await withUsed(14);
    await expect(full.devices.use(GARAGE_DOORS).set(DOOR, 0, 'open')).rejects.toMatchObject({ code: 'COMMAND_BUDGET_EXHAUSTED' });
    expect(full.cloud.sentCount).toBe(14);
    await built?.close();

    const room = await withUsed(13);
    await room.devices.use(GARAGE_DOORS).set(DOOR, 0, 'open');
    expect(room.cloud.sentCount).toBe(LIMIT);
  });

  it('refuses the first read of a door with 14 sent, of a cover with 13, of a hub with 12', async () => {
    for (const [used, read] of [
      [14, (d: TestApp['devices']) => d.use(GARAGE_DOORS).read(DOOR)],
      [13, (d: TestApp['devices']) => d.use(COVERS).read(BLINDS)],
      [12, (d: TestApp['devices']) => d.use(HUBS).read(HUB)],
    ] as const) {
      const { cloud, devices } = await withUsed(used);
      await expect(read(devices)).rejects.toMatchObject({ code: 'COMMAND_BUDGET_EXHAUSTED' });
      expect(cloud.sentCount).toBe(used);
      await built?.close();
      built = undefined;
    }
  });

  it('reads an MTS200B first with 11 sent (abilities, Mode, Overheat, Sensor) and refuses its read with 12', async () => {
    const full = await withUsed(12);
    await expect(full.devices.use(THERMOSTATS).read(MTS)).rejects.toMatchObject({ code: 'COMMAND_BUDGET_EXHAUSTED' });
    expect(full.cloud.sentCount).toBe(12);
    await built?.close();

    const room = await withUsed(11);
    await room.devices.use(THERMOSTATS).read(MTS);
    expect(room.cloud.sentCount).toBe(LIMIT);
  });

  it('sends the first position of a cover whose position is unknown with 11 sent (abilities, two reads, the move) and refuses it with 12', async () => {
    const full = await withUsed(12);
    await expect(full.devices.use(COVERS).set(BLINDS, 0, { position: 50 })).rejects.toMatchObject({ code: 'COMMAND_BUDGET_EXHAUSTED' });
    expect(full.cloud.sentCount).toBe(12);
    await built?.close();

    const room = await withUsed(11);
    await room.devices.use(COVERS).set(BLINDS, 0, { position: 50 });
    expect(room.cloud.sentCount).toBe(LIMIT);
  });

  it('sends the first target of a valve not read yet with 9 sent (abilities, three reads, target, mode) and refuses it with 10', async () => {
    const full = await withUsed(10);
    await expect(full.devices.use(HUBS).setValve(HUB, 'valve-1', { targetTemperature: 19.5 })).rejects.toMatchObject({ code: 'COMMAND_BUDGET_EXHAUSTED' });
    expect(full.cloud.sentCount).toBe(10);
    await built?.close();

    const room = await withUsed(9);
    await room.devices.use(HUBS).setValve(HUB, 'valve-1', { targetTemperature: 19.5 });
    expect(room.cloud.sentCount).toBe(LIMIT);
  });

  it('refuses the first toggle of a switch of unknown state with 13 sent (state read, abilities, ToggleX) and sends exactly 3 with 12', async () => {
    const full = await withUsed(13);
    await expect(full.devices.use(SWITCHES).toggle(PLUG, 0)).rejects.toMatchObject({ code: 'COMMAND_BUDGET_EXHAUSTED' });
    expect(full.cloud.sentCount).toBe(13);
    expect([full.cloud.callsOf('readChannels'), full.cloud.callsOf('setChannel')]).toEqual([[], []]);
    await built?.close();

    const room = await withUsed(12);
    await room.devices.use(SWITCHES).toggle(PLUG, 0);
    expect(room.cloud.sentCount).toBe(LIMIT);
    expect(room.cloud.stateOf(PLUG, 0)).toBe(true);
  });

  it('refuses the first on of a switch with 14 sent (abilities, ToggleX), sends exactly 2 with 13, and the next one costs one', async () => {
    const full = await withUsed(14);
    await expect(full.devices.use(SWITCHES).set(PLUG, 0, true)).rejects.toMatchObject({ code: 'COMMAND_BUDGET_EXHAUSTED' });
    expect(full.cloud.sentCount).toBe(14);
    await built?.close();

    const room = await withUsed(12);
    await room.devices.use(SWITCHES).set(PLUG, 0, true);
    expect(room.cloud.sentCount).toBe(14);
    await room.devices.use(SWITCHES).set(PLUG, 0, false);
    expect(room.cloud.sentCount).toBe(LIMIT);
  });

  it('refuses to set a light known from a push whose abilities new firmware dropped with 14 sent (abilities, the setting), and sends exactly 2 with 13', async () => {
    /** A light read (abilities and System.All), then new firmware, then a push: its settings known, its abilities not. */
    const readThenUpdated = async (used: number) => {
      const subject = await withUsed(used - 2);
      await subject.devices.use(LIGHTS).read(BULB);
      subject.cloud.forgetAbilities(BULB);
      subject.cloud.emit({ type: 'light', uuid: BULB, channel: 0, brightness: 70, source: 'push' });
      expect(subject.cloud.sentCount).toBe(used);
      return subject;
    };

    const full = await readThenUpdated(14);
    await expect(full.devices.use(LIGHTS).set(BULB, 0, { brightness: 30 })).rejects.toMatchObject({ code: 'COMMAND_BUDGET_EXHAUSTED' });
    expect([full.cloud.sentCount, full.cloud.callsOf('setLight')]).toEqual([14, []]);
    await built?.close();

    const room = await readThenUpdated(13);
    await room.devices.use(LIGHTS).set(BULB, 0, { brightness: 30 });
    expect(room.cloud.sentCount).toBe(LIMIT);
  });

  it('retries a never-commanded switch whose LAN address went silent through the cloud only with room for all 3 (address read, abilities, ToggleX)', async () => {
    for (const [used, outcome] of [
      [13, 'COMMAND_BUDGET_EXHAUSTED'],
      [12, 'sent'],
    ] as const) {
      const clock = new ManualClock(Date.parse('2026-11-24T10:00:00.000Z'));
      const cloud = new LanMerossCountingCloud([cloudDevice({ uuid: PLUG, link: lanLink('127.0.1.1:8001') })]);
      const { devices } = (built = await buildTestApp({ cloud, clock, service: { maxMessagesPerMinute: LIMIT, maxMessagesPerHour: 180 } }));
      // The LAN fake's own cloud messages (the read that learns an address) are counted where the service counts them.
      const throughCloud = () => devices.health().budget.sent.api + devices.health().budget.sent.mqtt;
      sendElsewhere(cloud, used - throughCloud());
      cloud.silence(PLUG);

      const result = await devices
        .use(SWITCHES)
        .set(PLUG, 0, true)
        .then(() => 'sent', refusal);

      expect(result).toBe(outcome);
      expect(throughCloud()).toBe(outcome === 'sent' ? LIMIT : used);
      expect(cloud.refreshes).toHaveLength(outcome === 'sent' ? 1 : 0);
      await built.close();
      built = undefined;
    }
  });
});
