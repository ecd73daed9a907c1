import { describe, expect, it } from 'vitest';
import { parseHub, parseHubPush, subDeviceNames } from '../../src/families/hub/adapters/hub.meross.js';
import { smokeStateOf } from '../../src/families/hub/adapters/hub-sensors.meross.js';

// Payloads as meross_lan's msh300hk-ms200-gs559 trace and its MS400 parser show them.
const DOOR = '160020100486';
const SMOKE = '28004811B776';
const LEAK = '0000E5F6';
const online = { status: 1, lastActiveTime: 1681996722 };
const sensorsAll = {
  all: [
    { id: DOOR, online, doorWindow: { status: 0, lmTime: 1681983460 } },
    { id: SMOKE, online, smokeAlarm: { status: 170, lmtime: 1681997644, interConn: 0 } },
    { id: LEAK, online: { status: 2, lastActiveTime: 1681990000 }, waterLeak: { latestWaterLeak: 1, latestSampleTime: 1681997000 } },
  ],
};
const battery = {
  battery: [
    { id: DOOR, value: 100 },
    { id: SMOKE, value: 90 },
    { id: LEAK, value: 80 },
  ],
};
const names = subDeviceNames([
  { subDeviceId: DOOR, subDeviceType: 'ms200', subDeviceName: 'Front door' },
  { subDeviceId: SMOKE, subDeviceType: 'gs559', subDeviceName: 'Hallway' },
]);

describe('the hub safety sensors codec', () => {
  it('reads a door, a smoke and a leak sensor from Hub.Sensor.All with their kinds, states and batteries', () => {
    const read = parseHub({ all: [] }, sensorsAll, battery, names);

    expect(read).toEqual([
      expect.objectContaining({
        id: DOOR,
        name: 'Front door',
        kind: 'contact',
        model: 'ms200',
        online: true,
        battery: 100,
        open: false,
        leak: null,
        smoke: null,
      }),
      expect.objectContaining({ id: SMOKE, name: 'Hallway', kind: 'smoke', model: 'gs559', battery: 90, smoke: 'clear', leak: null, open: null }),
      // Not in the cloud's list: named by its id, its model from what it reports.
      expect.objectContaining({ id: LEAK, name: LEAK, kind: 'leak', model: 'ms400', online: false, battery: 80, leak: true, smoke: null, open: null }),
    ]);
    expect(read.every((d) => d.temperature === null && d.humidity === null && d.on === null)).toBe(true);
  });

  it('leaves leak, smoke and open null on valves and temperature sensors', () => {
    const read = parseHub(
      { all: [{ id: 'V1', online, togglex: { onoff: 1 }, temperature: { room: 205, currentSet: 210, min: 50, max: 350 } }] },
      { all: [{ id: 'S1', online, temperature: { latest: 132 }, humidity: { latest: 684 } }] },
      { battery: [] },
      new Map(),
    );

    expect(read.map((d) => [d.kind, d.leak, d.smoke, d.open])).toEqual([
      ['valve', null, null, null],
      ['sensor', null, null, null],
    ]);
  });

  it.each([
    [170, 'clear'],
    [23, 'test'],
    [24, 'alarm'],
    [25, 'alarm'],
    [26, 'muted'],
    [27, 'muted'],
    [17, 'fault'],
    [18, 'fault'],
    [19, 'fault'],
    [20, 'fault'],
    [21, 'fault'],
    [22, 'fault'],
    [99, 'fault'],
  ] as const)('takes GS559 status %i as %s', (status, state) => {
    expect(smokeStateOf(status)).toBe(state);
    expect(parseHubPush('Appliance.Hub.Sensor.Smoke', { smokeAlarm: [{ id: SMOKE, status, interConn: 0 }] })).toEqual([
      { id: SMOKE, change: { smoke: state } },
    ]);
  });

  it('takes the pushes of each safety namespace, of Hub.Online, and of Hub.Sensor.All', () => {
    expect(parseHubPush('Appliance.Hub.Sensor.WaterLeak', { waterLeak: [{ id: LEAK, latestWaterLeak: 1, latestSampleTime: 1 }] })).toEqual([
      { id: LEAK, change: { leak: true } },
    ]);
    expect(parseHubPush('Appliance.Hub.Sensor.WaterLeak', { waterLeak: [{ id: LEAK, latestWaterLeak: 0 }] })).toEqual([{ id: LEAK, change: { leak: false } }]);
    expect(parseHubPush('Appliance.Hub.Sensor.DoorWindow', { doorWindow: [{ id: DOOR, status: 1, lmTime: 2 }] })).toEqual([
      { id: DOOR, change: { open: true } },
    ]);
    expect(parseHubPush('Appliance.Hub.Sensor.DoorWindow', { doorWindow: [{ id: DOOR, status: 0 }] })).toEqual([{ id: DOOR, change: { open: false } }]);
    expect(parseHubPush('Appliance.Hub.Online', { online: [{ id: DOOR, status: 2, lastActiveTime: 3 }] })).toEqual([{ id: DOOR, change: { online: false } }]);
    expect(parseHubPush('Appliance.Hub.Sensor.All', sensorsAll)).toEqual([
      { id: DOOR, change: { open: false } },
      { id: SMOKE, change: { smoke: 'clear' } },
      { id: LEAK, change: { leak: true } },
    ]);
  });

  it('ignores entries without an id or with values it does not know', () => {
    expect(parseHubPush('Appliance.Hub.Sensor.WaterLeak', { waterLeak: [{ latestWaterLeak: 1 }, { id: LEAK, latestWaterLeak: 'wet' }] })).toEqual([
      { id: LEAK, change: {} },
    ]);
    expect(parseHubPush('Appliance.Hub.Sensor.Smoke', { smokeAlarm: [{ id: SMOKE }] })).toEqual([{ id: SMOKE, change: {} }]);
    expect(parseHubPush('Appliance.Hub.Sensor.Smoke', 'nonsense')).toEqual([]);
  });
});
