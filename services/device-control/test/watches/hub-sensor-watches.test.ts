import { createLogger, ManualClock } from '@homeops/common';
import { drainEventLoop } from '@homeops/test-kit';
import { afterEach, describe, expect, it } from 'vitest';
import { InMemoryWatchStore } from '../../src/adapters/watches/file-watch-store.js';
import { DeviceService } from '../../src/domain/device.service.js';
import { DeviceWatches, type WatchSignal } from '../../src/domain/watches/device-watches.js';
import type { HubSubDeviceReading } from '../../src/families/hub/domain/hub.types.js';
import { WatchBodySchema } from '../../src/http/watches.schemas.js';
import { DOMAIN_FAMILIES } from '../../src/families/index.js';
import { FakeDeviceCloud, hub, safetySensors } from '../fakes/fake-device-cloud.js';

// The hub's safety sensors as alarms on a ManualClock over the fake cloud: one priority-2 notification per episode
// with one tag (the episode), its end by that tag when the sensor clears, nothing for a muted or tested smoke alarm.
const logger = createLogger({ service: 'test', level: 'silent' });
const HUB = 'hub-1';
const notify = { recipient: 'family', priority: 2 };

let stops: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const stop of stops.reverse()) await stop();
  stops = [];
});

async function house() {
  const clock = new ManualClock(Date.parse('2026-11-28T08:00:00Z'));
  const cloud = new FakeDeviceCloud([hub({ uuid: HUB, name: 'Hub' })]);
  cloud.hubDevices.push(...safetySensors());
  const devices = new DeviceService(
    cloud,
    {
      families: DOMAIN_FAMILIES,
      maxMessagesPerMinute: 100,
      maxMessagesPerHour: 180,
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
  const pass = async (ms: number, step = 1_000) => {
    for (let t = 0; t < ms; t += step) {
      clock.advance(Math.min(step, ms - t));
      await drainEventLoop();
    }
  };
  /** The sensor changes at the hub and the hub pushes it. */
  const sensor = async (id: string, change: Partial<HubSubDeviceReading>) => {
    cloud.hubDevices = cloud.hubDevices.map((d) => (d.id === id ? { ...d, ...change } : d));
    cloud.emit({ type: 'hubDevice', uuid: HUB, id, change, source: 'push' });
    await drainEventLoop();
  };
  return { cloud, watches, sent, put, pass, sensor };
}

describe('a leak sensor watch', () => {
  it('sends one priority-2 firing per leak with one tag, and the resolve with that tag once the sensor is dry', async () => {
    const { cloud, watches, sent, put, pass, sensor } = await house();
    const view = await put('laundry-leak', { condition: { kind: 'leak', device: HUB, sensor: 'Laundry' }, notify, clearSeconds: 0 });
    expect(view).toMatchObject({ state: 'quiet', messagesPerHour: 0 });

    await sensor('leak-1', { leak: true });
    await sensor('leak-1', { leak: true });
    await pass(60_000);
    expect(sent).toEqual([expect.objectContaining({ watch: 'laundry-leak', state: 'firing', priority: 2, recipient: 'family', title: 'Laundry: water leak' })]);
    expect(watches.get('laundry-leak').state).toBe('firing');

    await sensor('leak-1', { leak: false });
    expect(sent.map((s) => [s.state, s.episode])).toEqual([
      ['firing', sent[0]!.episode],
      ['resolved', sent[0]!.episode],
    ]);

    await sensor('leak-1', { leak: true });
    expect(sent).toHaveLength(3);
    expect(sent[2]!.episode).not.toBe(sent[0]!.episode);
    // The hub was read once, by the first push; the rest were pushes.
    expect(cloud.callsOf('readHub')).toHaveLength(1);
  });
});

describe('a smoke alarm watch', () => {
  it('rings on smoke or heat and ends at the all-clear', async () => {
    const { sent, put, sensor } = await house();
    await put('hall-smoke', { condition: { kind: 'smoke', device: HUB, sensor: 'smoke-1' }, notify, clearSeconds: 0 });

    await sensor('smoke-1', { smoke: 'alarm' });
    await sensor('smoke-1', { smoke: 'clear' });

    expect(sent.map((s) => [s.state, s.priority, s.title])).toEqual([
      ['firing', 2, 'smoke-1: smoke alarm'],
      ['resolved', 2, 'smoke-1: smoke alarm'],
    ]);
    expect(sent[1]!.episode).toBe(sent[0]!.episode);
  });

  it('does not ring for a muted alarm, a test or a fault, and a mute does not end a ringing alarm', async () => {
    const { sent, put, sensor, watches } = await house();
    await put('hall-smoke', { condition: { kind: 'smoke', device: HUB, sensor: 'Hallway' }, notify, clearSeconds: 0 });

    for (const smoke of ['muted', 'test', 'fault', 'clear', 'test', 'clear'] as const) await sensor('smoke-1', { smoke });
    expect(sent).toEqual([]);

    await sensor('smoke-1', { smoke: 'alarm' });
    await sensor('smoke-1', { smoke: 'muted' });
    expect(sent.map((s) => s.state)).toEqual(['firing']);
    expect(watches.get('hall-smoke').state).toBe('firing');
    await sensor('smoke-1', { smoke: 'clear' });
    expect(sent.map((s) => s.state)).toEqual(['firing', 'resolved']);
  });
});

describe('a door/window open watch', () => {
  it('fires once the door has been open for N seconds, not for a door closed before, and ends when it closes', async () => {
    const { sent, put, pass, sensor } = await house();
    await put('front-door', { condition: { kind: 'open', device: HUB, sensor: 'Front door', seconds: 90 }, notify, clearSeconds: 0 });

    await sensor('door-1', { open: true });
    await pass(60_000);
    await sensor('door-1', { open: false });
    await pass(120_000);
    expect(sent).toEqual([]);

    await sensor('door-1', { open: true });
    await pass(89_000);
    expect(sent).toEqual([]);
    await pass(1_000);
    expect(sent).toEqual([
      expect.objectContaining({ state: 'firing', priority: 2, title: 'Front door is open', message: 'Hub: Front door has been open for more than 90 seconds' }),
    ]);

    await sensor('door-1', { open: false });
    expect(sent.map((s) => [s.state, s.episode])).toEqual([
      ['firing', sent[0]!.episode],
      ['resolved', sent[0]!.episode],
    ]);
  });

  it('costs no cloud messages per hour, and refuses a condition without its sensor or with negative seconds', async () => {
    const { watches, put } = await house();
    await put('leak', { condition: { kind: 'leak', device: HUB, sensor: 'leak-1' }, notify });
    await put('smoke', { condition: { kind: 'smoke', device: HUB, sensor: 'smoke-1' }, notify });
    await put('door', { condition: { kind: 'open', device: HUB, sensor: 'door-1', seconds: 30 }, notify });

    expect(watches.list().map((w) => [w.name, w.messagesPerHour])).toEqual([
      ['leak', 0],
      ['smoke', 0],
      ['door', 0],
    ]);
    expect(() => WatchBodySchema.parse({ condition: { kind: 'open', device: HUB, sensor: 'door-1', seconds: -1 }, notify })).toThrow();
    expect(() => WatchBodySchema.parse({ condition: { kind: 'leak', device: HUB }, notify })).toThrow();
  });
});

describe('the priority of a sensor watch', () => {
  it('rings at priority 2 when the watch gives none, keeps one it gives, and an offline watch still defaults to 0', async () => {
    const { watches, sent, put, sensor } = await house();
    const leak = await put('leak', { condition: { kind: 'leak', device: HUB, sensor: 'leak-1' }, notify: { recipient: 'family' }, clearSeconds: 0 });
    await put('door', { condition: { kind: 'open', device: HUB, sensor: 'door-1', seconds: 0 }, notify: { recipient: 'family', priority: 1 } });
    await put('gone', { condition: { kind: 'offline', device: HUB, minutes: 5 }, notify: { recipient: 'family' } });

    await sensor('leak-1', { leak: true });
    await sensor('door-1', { open: true });

    expect(leak.notify.priority).toBe(2);
    expect(sent.map((s) => [s.watch, s.priority])).toEqual([
      ['leak', 2],
      ['door', 1],
    ]);
    expect(watches.list().map((w) => [w.name, w.notify.priority])).toEqual([
      ['leak', 2],
      ['door', 1],
      ['gone', 0],
    ]);
  });
});
