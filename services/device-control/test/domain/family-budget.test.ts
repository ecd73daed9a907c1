import { AppError, ManualClock } from '@homeops/common';
import { afterEach, describe, expect, it } from 'vitest';
import type { CoverReading, GarageDoorReading, HubSubDeviceReading, ValveChange } from '../../src/domain/device-cloud.js';
import { cloudDevice, FakeDeviceCloud, garageDoorOpener, hub, rollerShutter } from '../fakes/fake-device-cloud.js';
import { buildTestApp, type TestApp } from '../support/test-app.js';

const PLUG = 'plug-1';
const DOOR = 'door-1';
const BLINDS = 'blinds-1';
const HUB = 'hub-1';
const LIMIT = 15;

/**
 * Sends as many messages as the Meross adapter does: the abilities (Appliance.System.Ability) before a device's first
 * family call, a cover read in two, a hub read in three, a valve target as target and mode (the mode unknown here).
 */
class MerossCountingCloud extends FakeDeviceCloud {
  private readonly abilitiesKnown = new Set<string>();

  /** Messages of the account the service did not send (the phone app, another integration). */
  sendElsewhere(count: number): void {
    for (let i = 0; i < count; i += 1) this.announce('elsewhere');
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

  override async setValve(uuid: string, id: string, change: ValveChange): Promise<void> {
    this.firstCall(uuid, (change.on !== undefined ? 1 : 0) + (change.targetTemperature !== undefined ? 2 : 0) - 1);
    return super.setValve(uuid, id, change);
  }

  /** The messages beyond the one the fake announces for the call itself, and the abilities the first time. */
  private firstCall(uuid: string, more = 0): void {
    if (!this.abilitiesKnown.has(uuid)) this.announce('Appliance.System.Ability');
    this.abilitiesKnown.add(uuid);
    for (let i = 0; i < more; i += 1) this.announce(uuid);
  }

  private announce(what: string): void {
    this.sentCount += 1;
    this.emit({ type: 'sent', via: 'mqtt', what });
  }
}

describe('the first call to a door, a cover or a hub, within a budget of 15 messages a minute', () => {
  let built: TestApp | undefined;
  afterEach(async () => {
    await built?.close();
    built = undefined;
  });

  /** The service with `used` of the minute's 15 messages already sent (the device list counts one). */
  async function withUsed(used: number) {
    const clock = new ManualClock(Date.parse('2026-11-24T10:00:00.000Z'));
    const cloud = new MerossCountingCloud([cloudDevice({ uuid: PLUG }), garageDoorOpener({ uuid: DOOR }), rollerShutter({ uuid: BLINDS }), hub({ uuid: HUB })]);
    built = await buildTestApp({ cloud, clock, service: { maxMessagesPerMinute: LIMIT, maxMessagesPerHour: 180 } });
    cloud.sendElsewhere(used - cloud.sentCount);
    expect(cloud.sentCount).toBe(used);
    return { cloud, devices: built.devices };
  }

  const refusal = (err: unknown) => (err instanceof AppError ? err.code : err);

  it('arriving together with 4 sent, the door and the cover go out (6 messages) and the hub target is refused: 10 sent, never 16', async () => {
    const { cloud, devices } = await withUsed(4);

    const outcomes = await Promise.allSettled([
      devices.setGarageDoor(DOOR, 0, 'open'),
      devices.moveCover(BLINDS, 0, { position: 50 }),
      devices.setValve(HUB, 'valve-1', { targetTemperature: 19.5 }),
    ]);

    expect(outcomes.map((o) => (o.status === 'fulfilled' ? 'sent' : refusal(o.reason)))).toEqual(['sent', 'sent', 'COMMAND_BUDGET_EXHAUSTED']);
    expect(cloud.sentCount).toBe(10);
    expect(cloud.callsOf('setValve')).toEqual([]);
  });

  it('refuses the first open of a door with 14 sent (it takes two: abilities and command), and sends it with 13', async () => {
    const full = await withUsed(14);
    await expect(full.devices.setGarageDoor(DOOR, 0, 'open')).rejects.toMatchObject({ code: 'COMMAND_BUDGET_EXHAUSTED' });
    expect(full.cloud.sentCount).toBe(14);
    await built?.close();

    const room = await withUsed(13);
    await room.devices.setGarageDoor(DOOR, 0, 'open');
    expect(room.cloud.sentCount).toBe(LIMIT);
  });

  it('refuses the first read of a door with 14 sent, of a cover with 13, of a hub with 12', async () => {
    for (const [used, read] of [
      [14, (d: TestApp['devices']) => d.readGarageDoors(DOOR)],
      [13, (d: TestApp['devices']) => d.readCovers(BLINDS)],
      [12, (d: TestApp['devices']) => d.readHub(HUB)],
    ] as const) {
      const { cloud, devices } = await withUsed(used);
      await expect(read(devices)).rejects.toMatchObject({ code: 'COMMAND_BUDGET_EXHAUSTED' });
      expect(cloud.sentCount).toBe(used);
      await built?.close();
      built = undefined;
    }
  });

  it('sends the first position of a cover whose position is unknown with 11 sent (abilities, two reads, the move) and refuses it with 12', async () => {
    const full = await withUsed(12);
    await expect(full.devices.moveCover(BLINDS, 0, { position: 50 })).rejects.toMatchObject({ code: 'COMMAND_BUDGET_EXHAUSTED' });
    expect(full.cloud.sentCount).toBe(12);
    await built?.close();

    const room = await withUsed(11);
    await room.devices.moveCover(BLINDS, 0, { position: 50 });
    expect(room.cloud.sentCount).toBe(LIMIT);
  });

  it('sends the first target of a valve not read yet with 9 sent (abilities, three reads, target, mode) and refuses it with 10', async () => {
    const full = await withUsed(10);
    await expect(full.devices.setValve(HUB, 'valve-1', { targetTemperature: 19.5 })).rejects.toMatchObject({ code: 'COMMAND_BUDGET_EXHAUSTED' });
    expect(full.cloud.sentCount).toBe(10);
    await built?.close();

    const room = await withUsed(9);
    await room.devices.setValve(HUB, 'valve-1', { targetTemperature: 19.5 });
    expect(room.cloud.sentCount).toBe(LIMIT);
  });
});
