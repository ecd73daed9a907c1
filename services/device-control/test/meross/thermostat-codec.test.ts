import { describe, expect, it } from 'vitest';
import { newEntry } from '../../src/adapters/meross/meross-device-entry.js';
import type { MerossDeviceAccess } from '../../src/adapters/meross/meross-family.js';
import type { CloudEvent } from '../../src/domain/device-cloud.js';
import { THERMOSTAT_MEROSS } from '../../src/families/thermostat/adapters/thermostat.meross.js';
import { afterSet, modeEntries, readingOf, setEntry, sideStates } from '../../src/families/thermostat/adapters/thermostat.payloads.js';

// Entries as meross_lan's mts200b and mts960 traces show them.
const MTS200 = {
  channel: 0,
  onoff: 1,
  mode: 4,
  state: 1,
  currentTemp: 218,
  heatTemp: 210,
  coolTemp: 200,
  ecoTemp: 200,
  manualTemp: 215,
  targetTemp: 215,
  min: 50,
  max: 350,
};
// Thermostat.Overheat entries of the mts200b traces: a floor sensor at 35.5 °C under a 33.5 °C threshold, and none.
const OVERHEAT = { warning: 0, value: 335, onoff: 1, min: 200, max: 700, lmTime: 1674121910, currentTemp: 355, channel: 0 };
const DISCONNECTED = { channel: 0, currentTemp: 0, onoff: 1, value: 250, min: 200, max: 700, warning: 2, lmTime: 1700842238 };
const MTS960 = { channel: 0, mode: 1, targetTemp: 2600, working: 2, currentTemp: 1949, state: 2, onoff: 1, sensorStatus: 1 };

describe('the thermostat payloads', () => {
  it('reads an MTS200 in tenths of °C, heating while its state is 1, cooling instead in summer mode 2', () => {
    expect(readingOf('mode', 0, { entry: MTS200 })).toEqual({
      channel: 0,
      on: true,
      mode: 'manual',
      modes: ['heat', 'cool', 'economy', 'auto', 'manual'],
      currentTemperature: 21.8,
      targetTemperature: 21.5,
      minTemperature: 5,
      maxTemperature: 35,
      heating: true,
      cooling: false,
    });
    expect(readingOf('mode', 0, { entry: MTS200, summerMode: 2, windowOpen: true })).toMatchObject({ heating: false, cooling: true, windowOpen: true });
    expect(readingOf('mode', 0, { entry: { ...MTS200, onoff: 0 } })).toMatchObject({ on: false, heating: false });
  });

  it('reads an MTS960 in hundredths of °C: onoff 2 is off, working 2 is cool, state 2 idle, its timer without a target', () => {
    expect(readingOf('modeB', 0, { entry: MTS960, range: { min: 3, max: 36 } })).toEqual({
      channel: 0,
      on: true,
      mode: 'cool',
      modes: ['heat', 'cool', 'auto', 'timer'],
      currentTemperature: 19.49,
      targetTemperature: 26,
      minTemperature: 3,
      maxTemperature: 36,
      heating: false,
      cooling: false,
    });
    const withoutRange = readingOf('modeB', 0, { entry: { ...MTS960, onoff: 2 } });
    expect(withoutRange).toMatchObject({ on: false });
    // Its range is not in its entry: until read, the reading is incomplete and waits for a read.
    expect([withoutRange.minTemperature, withoutRange.maxTemperature]).toEqual([undefined, undefined]);
    expect(readingOf('modeB', 0, { entry: { ...MTS960, mode: 3, targetTemp: 0 } })).toMatchObject({ mode: 'timer', targetTemperature: null });
    expect(readingOf('modeB', 0, { entry: { ...MTS960, mode: 2, state: 1, working: 1 } })).toMatchObject({ mode: 'auto', heating: true });
  });

  it('reads Thermostat.Overheat in the scale of the protocol: warning 1 overheating, 2 disconnected without a temperature', () => {
    const [told] = sideStates('Appliance.Control.Thermostat.Overheat', { overheat: [OVERHEAT] });
    const [gone] = sideStates('Appliance.Control.Thermostat.Overheat', { overheat: [DISCONNECTED] });

    expect(readingOf('mode', 0, { entry: MTS200, overheat: told!.overheat! }).overheat).toEqual({
      enabled: true,
      warning: 'ok',
      threshold: 33.5,
      temperature: 35.5,
    });
    expect(readingOf('mode', 0, { entry: MTS200, overheat: { ...OVERHEAT, warning: 1, onoff: 0 } }).overheat).toMatchObject({
      enabled: false,
      warning: 'overheating',
    });
    expect(readingOf('mode', 0, { entry: MTS200, overheat: gone!.overheat! }).overheat).toEqual({
      enabled: true,
      warning: 'disconnected',
      threshold: 25,
      temperature: null,
    });
    expect(readingOf('modeB', 0, { entry: MTS960, overheat: { ...OVERHEAT, value: 3350 } }).overheat).toMatchObject({ threshold: 33.5, temperature: 3.55 });
  });

  it('reads Thermostat.Sensor mode 0 as the internal sensor and 1 as the external one; leaves out what it cannot read', () => {
    const sensors = sideStates('Appliance.Control.Thermostat.Sensor', {
      sensor: [
        { channel: 0, mode: 1 },
        { channel: 1, mode: 0 },
        { channel: 2, mode: 7 },
      ],
    });
    const unreadable = sideStates('Appliance.Control.Thermostat.Overheat', {
      overheat: [
        { ...OVERHEAT, warning: 9 },
        { channel: 1, onoff: 1 },
      ],
    });

    expect(sensors).toEqual([
      { channel: 0, sensor: 1 },
      { channel: 1, sensor: 0 },
    ]);
    expect(readingOf('mode', 0, { entry: MTS200, sensor: 1 }).sensor).toBe('external');
    expect(readingOf('mode', 0, { entry: MTS200, sensor: 0 }).sensor).toBe('internal');
    expect(unreadable).toEqual([]);
    expect(sideStates('Appliance.Control.Thermostat.Sensor', { sensor: [] })).toEqual([]);
  });

  it('ignores the empty answer and the bare channel a GET asked with the wrong list gets back', () => {
    expect(modeEntries('mode', { mode: [] })).toEqual([]);
    expect(modeEntries('modeB', { modeB: [{ channel: 0 }] })).toEqual([]);
    expect(modeEntries('modeB', { modeB: [MTS960] })).toEqual([MTS960]);
  });

  it("builds an MTS200's SET entry: a target to the preset of its mode, to manual from auto; onoff 0 turns it off", () => {
    const auto = { entry: { ...MTS200, mode: 3 } };
    const heat = { entry: { ...MTS200, mode: 0 } };

    expect(setEntry('mode', 0, { targetTemperature: 22.5 }, auto)).toEqual({ channel: 0, mode: 4, manualTemp: 225 });
    expect(setEntry('mode', 0, { targetTemperature: 19 }, heat)).toEqual({ channel: 0, mode: 0, heatTemp: 190 });
    expect(setEntry('mode', 0, { mode: 'economy', targetTemperature: 16 }, heat)).toEqual({ channel: 0, mode: 2, ecoTemp: 160 });
    expect(setEntry('mode', 0, { on: false }, heat)).toEqual({ channel: 0, onoff: 0 });
    expect(setEntry('mode', 0, { on: true, mode: 'auto' }, undefined)).toEqual({ channel: 0, onoff: 1, mode: 3 });
  });

  it("builds an MTS960's SET entry: onoff 1 or 2, heat and cool as mode 1 with working, a target keeping how it works", () => {
    const scheduleCooling = { entry: { ...MTS960, mode: 2, working: 2 } };

    expect(setEntry('modeB', 0, { on: false }, scheduleCooling)).toEqual({ channel: 0, onoff: 2 });
    expect(setEntry('modeB', 0, { on: true }, scheduleCooling)).toEqual({ channel: 0, onoff: 1 });
    expect(setEntry('modeB', 0, { mode: 'heat' }, scheduleCooling)).toEqual({ channel: 0, mode: 1, working: 1 });
    expect(setEntry('modeB', 0, { targetTemperature: 24.5 }, scheduleCooling)).toEqual({ channel: 0, mode: 1, working: 2, targetTemp: 2450 });
    expect(setEntry('modeB', 0, { mode: 'auto' }, scheduleCooling)).toEqual({ channel: 0, mode: 2 });
    expect(setEntry('modeB', 0, { mode: 'timer' }, undefined)).toEqual({ channel: 0, mode: 3 });
  });

  it("takes, where the answer says nothing, the SET's fields and a new MTS200 mode's preset as the target", () => {
    expect(afterSet('mode', { entry: MTS200 }, { channel: 0, mode: 0 })).toMatchObject({ mode: 0, targetTemp: 210 });
    expect(afterSet('modeB', { entry: MTS960 }, { channel: 0, onoff: 2 })).toMatchObject({ onoff: 2, mode: 1, targetTemp: 2600 });
  });
});

describe('THERMOSTAT_MEROSS push and poll', () => {
  const entry = () => newEntry({ uuid: 'mts', deviceType: 'mts200b' }, null);
  const access = (events: CloudEvent[]) => ({ emit: (e: CloudEvent) => events.push(e), setOnline: () => undefined }) as unknown as MerossDeviceAccess;

  it('announces a Mode push, and a window opening on the thermostat it knows', () => {
    const device = entry();
    const events: CloudEvent[] = [];

    const handled = THERMOSTAT_MEROSS.push!(device, 'Appliance.Control.Thermostat.Mode', { mode: [MTS200] }, access(events));
    THERMOSTAT_MEROSS.push!(device, 'Appliance.Control.Thermostat.WindowOpened', { windowOpened: [{ channel: 0, status: 1, detect: 1 }] }, access(events));
    const other = THERMOSTAT_MEROSS.push!(device, 'Appliance.Control.ToggleX', { togglex: [] }, access(events));

    expect(handled).toBe(true);
    expect(other).toBe(false);
    expect(events).toEqual([
      expect.objectContaining({ type: 'thermostat', uuid: 'mts', channel: 0, source: 'push', targetTemperature: 21.5 }),
      expect.objectContaining({ type: 'thermostat', channel: 0, windowOpen: true, targetTemperature: 21.5 }),
    ]);
  });

  it('announces an Overheat push and a Sensor push on the thermostat it knows', () => {
    const device = entry();
    const events: CloudEvent[] = [];

    THERMOSTAT_MEROSS.push!(device, 'Appliance.Control.Thermostat.Mode', { mode: [MTS200] }, access(events));
    const overheat = THERMOSTAT_MEROSS.push!(device, 'Appliance.Control.Thermostat.Overheat', { overheat: [{ ...OVERHEAT, warning: 1 }] }, access(events));
    const sensor = THERMOSTAT_MEROSS.push!(device, 'Appliance.Control.Thermostat.Sensor', { sensor: [{ channel: 0, mode: 0 }] }, access(events));

    expect([overheat, sensor]).toEqual([true, true]);
    expect(events.slice(1)).toEqual([
      expect.objectContaining({
        type: 'thermostat',
        channel: 0,
        source: 'push',
        overheat: { enabled: true, warning: 'overheating', threshold: 33.5, temperature: 35.5 },
      }),
      expect.objectContaining({ type: 'thermostat', channel: 0, sensor: 'internal', overheat: expect.objectContaining({ warning: 'overheating' }) }),
    ]);
  });

  it('tells null for what the abilities do not declare, and leaves out what they declare until it is told', () => {
    const declared = (names: string[]) => new Map(['Appliance.Control.Thermostat.Mode', ...names].map((n) => [n, {}]));
    const events: CloudEvent[] = [];
    const plain = Object.assign(entry(), { abilities: declared([]) });
    const floor = Object.assign(entry(), { abilities: declared(['Appliance.Control.Thermostat.Overheat', 'Appliance.Control.Thermostat.Sensor']) });

    THERMOSTAT_MEROSS.push!(plain, 'Appliance.Control.Thermostat.Mode', { mode: [MTS200] }, access(events));
    THERMOSTAT_MEROSS.push!(floor, 'Appliance.Control.Thermostat.Mode', { mode: [MTS200] }, access(events));
    THERMOSTAT_MEROSS.push!(floor, 'Appliance.Control.Thermostat.Sensor', { sensor: [{ channel: 0, mode: 1 }] }, access(events));

    expect(events[0]).toMatchObject({ overheat: null, sensor: null });
    expect([events[1]!, events[2]!].map((e) => ['overheat' in e, 'sensor' in e])).toEqual([
      [false, false],
      [false, true],
    ]);
    expect(events[2]).toMatchObject({ sensor: 'external' });
  });

  it("tells what System.All's digest shows on the LAN poll, once per change", () => {
    const device = entry();
    const seen = new Map<string, string>();
    const changed = (key: string, value: unknown) => seen.get(key) !== JSON.stringify(value) && (seen.set(key, JSON.stringify(value)), true);
    const all = (currentTemp: number) => new Map([['Appliance.System.All', { all: { digest: { thermostat: { modeB: [{ ...MTS960, currentTemp }] } } } }]]);

    const first = THERMOSTAT_MEROSS.poll!(device, all(1949), changed).events;
    const same = THERMOSTAT_MEROSS.poll!(device, all(1949), changed).events;
    const warmer = THERMOSTAT_MEROSS.poll!(device, all(2010), changed).events;

    expect(first).toEqual([expect.objectContaining({ type: 'thermostat', mode: 'cool', currentTemperature: 19.49 })]);
    expect(same).toEqual([]);
    expect(warmer).toEqual([expect.objectContaining({ currentTemperature: 20.1 })]);
  });
});
