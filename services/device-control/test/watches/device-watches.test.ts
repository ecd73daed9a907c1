import { createLogger, ManualClock } from '@homeops/common';
import { drainEventLoop, eventually } from '@homeops/test-kit';
import { afterEach, describe, expect, it } from 'vitest';
import { InMemoryWatchStore } from '../../src/adapters/watches/file-watch-store.js';
import { DeviceService } from '../../src/domain/device.service.js';
import { DeviceWatches, type WatchSignal } from '../../src/domain/watches/device-watches.js';
import { WatchBodySchema } from '../../src/http/watches.schemas.js';
import { cloudDevice, FakeDeviceCloud, garageDoorOpener, hub } from '../fakes/fake-device-cloud.js';
import { DOMAIN_FAMILIES } from '../../src/families/index.js';

// Watches on a ManualClock over the fake cloud: one notification per episode, its end when the condition clears, and
// nothing for flapping inside the hold or the clearing time.
const logger = createLogger({ service: 'test', level: 'silent' });
const MINUTE = 60_000;

let stops: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const stop of stops.reverse()) await stop();
  stops = [];
});

async function house(hourlyBudget = 180) {
  const clock = new ManualClock(Date.parse('2026-11-26T08:00:00Z'));
  const cloud = new FakeDeviceCloud([
    garageDoorOpener({ uuid: 'garage-1', name: 'Garage' }),
    cloudDevice({ uuid: 'washer-1', name: 'Washer', type: 'mss310', capabilities: ['switch', 'energy'] }),
    hub({ uuid: 'hub-1', name: 'Hub' }),
  ]);
  const devices = new DeviceService(
    cloud,
    {
      families: DOMAIN_FAMILIES,
      maxMessagesPerMinute: 100,
      maxMessagesPerHour: hourlyBudget,
      syncIntervalSeconds: 0,
      requestTimeoutMs: 200,
      commandTimeoutMs: 100,
      backgroundStateReads: false,
    },
    logger,
    clock,
  );
  await devices.start();
  const sent: WatchSignal[] = [];
  const watches = new DeviceWatches({ devices, notifier: { send: async (s) => void sent.push(s) }, store: new InMemoryWatchStore(), clock, logger });
  await watches.load();
  watches.start();
  stops.push(
    () => watches.stop(),
    () => devices.stop(),
  );
  const put = (name: string, body: unknown) => watches.put(name, WatchBodySchema.parse(body));
  /** Moves the clock in steps (timers fire in order), letting what they start finish. */
  const pass = async (ms: number, step = 1_000) => {
    for (let t = 0; t < ms; t += step) {
      clock.advance(Math.min(step, ms - t));
      await drainEventLoop();
    }
  };
  const door = (state: 'open' | 'closed') => cloud.emit({ type: 'garageDoor', uuid: 'garage-1', channel: 0, state, source: 'push' });
  return { clock, cloud, devices, watches, sent, put, pass, door };
}

const notify = { recipient: 'family', priority: 2 };
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('a door left open', () => {
  it('fires once after N minutes and ends when the door has been closed for clearSeconds', async () => {
    const { sent, put, pass, door } = await house();
    await put('garage-open', { condition: { kind: 'doorOpen', device: 'garage-1', minutes: 30 }, notify, clearSeconds: 60 });

    door('open');
    await pass(29 * MINUTE, MINUTE);
    expect(sent).toEqual([]);
    await pass(MINUTE, MINUTE);
    expect(sent).toEqual([expect.objectContaining({ watch: 'garage-open', state: 'firing', title: 'Garage is open', priority: 2, recipient: 'family' })]);
    await pass(60 * MINUTE, MINUTE);
    expect(sent).toHaveLength(1);

    door('closed');
    await pass(30_000);
    door('open');
    door('closed');
    await pass(59_000);
    expect(sent).toHaveLength(1);
    await pass(1_000);
    expect(sent.map((s) => [s.state, s.episode])).toEqual([
      ['firing', sent[0]!.episode],
      ['resolved', sent[0]!.episode],
    ]);
  });

  it('names each episode with a new random id, not its start time, that no device event carries', async () => {
    const { devices, sent, put, pass, door, clock } = await house();
    const announced: unknown[] = [];
    devices.onEvent((event) => announced.push(event));
    await put('garage-open', { condition: { kind: 'doorOpen', device: 'garage-1', minutes: 10 }, notify, clearSeconds: 0 });
    const openedAt: number[] = [];
    for (let i = 0; i < 2; i++) {
      openedAt.push(clock.now());
      door('open');
      await pass(10 * MINUTE, MINUTE);
      door('closed');
      await pass(1_000);
    }

    const episodes = sent.filter((s) => s.state === 'firing').map((s) => s.episode);
    expect(episodes).toEqual([expect.stringMatching(UUID), expect.stringMatching(UUID)]);
    expect(new Set(episodes).size).toBe(2);
    for (const at of openedAt) expect(episodes.join(' ')).not.toContain(String(at));
    expect(announced.filter((e) => (e as { type: string }).type === 'watch')).not.toEqual([]);
    for (const episode of episodes) expect(JSON.stringify(announced)).not.toContain(episode);
  });

  it('fires nothing when the door flaps open and shut inside the N minutes', async () => {
    const { sent, put, pass, door } = await house();
    await put('garage-open', { condition: { kind: 'doorOpen', device: 'garage-1', minutes: 10 }, notify });
    for (let i = 0; i < 12; i++) {
      door('open');
      await pass(8 * MINUTE, MINUTE);
      door('closed');
      await pass(MINUTE, MINUTE);
    }
    expect(sent).toEqual([]);
  });
});

describe('a washing machine', () => {
  it('fires once when a cycle ends (power low for N minutes after running), not during its pauses, and once per cycle', async () => {
    const { cloud, sent, put, pass } = await house();
    await put('washer-done', {
      condition: { kind: 'powerBelow', device: 'washer-1', watts: 5, minutes: 3, afterAbove: 200, pollSeconds: 60 },
      notify: { recipient: 'family', priority: 0 },
    });
    // Idle before the cycle: below 5 W but never above 200 W yet.
    const trace: Array<[watts: number, minutes: number]> = [
      [1, 20],
      [1800, 10],
      [2, 2], // a soak pause shorter than 3 minutes
      [450, 40],
      [2, 30], // done
      [1700, 15], // the next cycle
      [1, 10], // done again
    ];
    const firedAt: number[] = [];
    let minute = 0;
    for (const [watts, minutes] of trace) {
      cloud.power = { power: watts, voltage: 230, current: watts / 230 };
      for (let i = 0; i < minutes; i++) {
        await pass(MINUTE, MINUTE);
        minute++;
        if (sent.length > firedAt.length) firedAt.push(minute);
      }
    }
    expect(sent.filter((s) => s.state === 'firing').map((s) => s.title)).toEqual(['Washer is done', 'Washer is done']);
    expect(firedAt[0]).toBeGreaterThanOrEqual(20 + 10 + 2 + 40 + 3);
    expect(firedAt[0]).toBeLessThanOrEqual(20 + 10 + 2 + 40 + 5);
  });

  it('states its cost and is refused when its reads would not fit the budget', async () => {
    const { put, watches } = await house(180);
    const view = await put('washer-done', { condition: { kind: 'powerBelow', device: 'washer-1', watts: 5, minutes: 3, pollSeconds: 60 }, notify });
    expect(view.messagesPerHour).toBe(60);
    await expect(
      put('washer-fast', { condition: { kind: 'powerBelow', device: 'washer-1', watts: 5, minutes: 3, pollSeconds: 100 }, notify }),
    ).rejects.toMatchObject({
      code: 'WATCH_OVER_BUDGET',
      message: expect.stringContaining("36 cloud messages per hour; with the other watches' 60"),
    });
    expect(watches.list().map((w) => w.name)).toEqual(['washer-done']);
  });
});

describe('offline, battery and temperature', () => {
  it('fires for a device offline longer than N minutes and ends when it is back', async () => {
    const { cloud, sent, put, pass } = await house();
    await put('washer-offline', { condition: { kind: 'offline', device: 'washer-1', minutes: 15 }, notify, clearSeconds: 0 });
    cloud.setOnline('washer-1', false);
    await pass(15 * MINUTE, MINUTE);
    expect(sent.map((s) => s.state)).toEqual(['firing']);
    cloud.setOnline('washer-1', true);
    await eventually(() => sent.length === 2);
    expect(sent[1]).toMatchObject({ state: 'resolved', episode: sent[0]!.episode });
  });

  it("fires when a hub sensor's battery is low, and when it stays too warm for N minutes", async () => {
    const { cloud, sent, put, pass } = await house();
    const cellar = cloud.hubDevices.find((d) => d.kind === 'sensor')!;
    await put('cellar-battery', { condition: { kind: 'batteryBelow', device: 'hub-1', sensor: cellar.name, percent: 20, pollSeconds: 600 }, notify });
    await put('cellar-warm', { condition: { kind: 'temperature', device: 'hub-1', sensor: cellar.id, above: 15, minutes: 20, pollSeconds: 600 }, notify });
    await pass(30 * MINUTE, MINUTE);
    expect(sent).toEqual([]);

    cloud.hubDevices = cloud.hubDevices.map((d) => (d.id === cellar.id ? { ...d, battery: 12, temperature: 17 } : d));
    await pass(40 * MINUTE, MINUTE);
    expect(sent.map((s) => s.watch).sort()).toEqual(['cellar-battery', 'cellar-warm']);
  });
});

describe('what watches cost', () => {
  it('reads the cloud as often per hour as each watch states, and door and presence watches not at all', async () => {
    const { cloud, put, pass, watches } = await house(10_000);
    const cellar = cloud.hubDevices.find((d) => d.kind === 'sensor')!;
    await put('door', { condition: { kind: 'doorOpen', device: 'garage-1', minutes: 30 }, notify });
    await put('offline', { condition: { kind: 'offline', device: 'washer-1', minutes: 10 }, notify });
    await put('washer', { condition: { kind: 'powerBelow', device: 'washer-1', watts: 5, minutes: 3 }, notify });
    await put('battery', { condition: { kind: 'batteryBelow', device: 'hub-1', sensor: cellar.id, percent: 10 }, notify });
    const before = { power: cloud.callsOf('readPower').length, hub: cloud.callsOf('readHub').length };
    await pass(60 * MINUTE, 10_000);
    const measured = { power: cloud.callsOf('readPower').length - before.power, hub: cloud.callsOf('readHub').length - before.hub };
    const stated = Object.fromEntries(watches.list().map((w) => [w.name, w.messagesPerHour]));

    expect(stated).toEqual({ door: 0, offline: 0, washer: 30, battery: 1 });
    expect(measured.power).toBeGreaterThanOrEqual(stated.washer! - 1);
    expect(measured.power).toBeLessThanOrEqual(stated.washer! + 1);
    expect(measured.hub).toBeLessThanOrEqual(stated.battery! + 1);
  });
});

describe('the event stream', () => {
  it('tells each change of a watch state as a watch event', async () => {
    const { devices, put, pass, door } = await house();
    const seen: string[] = [];
    devices.onEvent((event) => event.type === 'watch' && seen.push(`${event.name}:${event.state}`));
    await put('garage-open', { condition: { kind: 'doorOpen', device: 'garage-1', minutes: 5 }, notify, clearSeconds: 60 });
    door('open');
    await pass(5 * MINUTE, MINUTE);
    door('closed');
    await pass(MINUTE, 10_000);
    expect(seen).toEqual(['garage-open:holding', 'garage-open:firing', 'garage-open:clearing', 'garage-open:quiet']);
  });
});

describe('a watch that names an escalation', () => {
  it('sends its steps with the firing only, and refuses steps that are short or not increasing', async () => {
    const { sent, put, pass, door } = await house();
    const escalate = [
      { recipient: 'bob', afterSeconds: 300 },
      { recipient: 'ops', afterSeconds: 900 },
    ];
    await put('garage-open', { condition: { kind: 'doorOpen', device: 'garage-1', minutes: 1 }, notify: { ...notify, escalate }, clearSeconds: 0 });

    door('open');
    await pass(MINUTE);
    door('closed');
    await pass(10_000);

    expect(sent.map((s) => [s.state, s.escalate])).toEqual([
      ['firing', escalate],
      ['resolved', undefined],
    ]);
    const body = (steps: unknown) => ({ condition: { kind: 'doorOpen', device: 'garage-1', minutes: 1 }, notify: { ...notify, escalate: steps } });
    expect(WatchBodySchema.safeParse(body([{ recipient: 'bob', afterSeconds: 59 }])).success).toBe(false);
    expect(WatchBodySchema.safeParse(body([escalate[1], escalate[0]])).success).toBe(false);
    expect(WatchBodySchema.safeParse(body(escalate)).success).toBe(true);
  });
});
