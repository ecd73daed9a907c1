import { describe, expect, it } from 'vitest';
import type { DeviceEvent } from '../../src/domain/device-events.js';
import { DeviceRegistry } from '../../src/domain/device-registry.js';
import { cloudDevice } from '../fakes/fake-device-cloud.js';

const NOW = '2026-01-01T00:00:00.000Z';

function registryWithEvents() {
  const events: DeviceEvent[] = [];
  return { registry: new DeviceRegistry((e) => events.push(e)), events };
}

describe('DeviceRegistry', () => {
  it("keeps a family's device flags from the backend's description and counts their change as an update", () => {
    const registry = new DeviceRegistry(() => {}, ['coverPositioning']);
    registry.reconcile([cloudDevice({ uuid: 'a', capabilities: ['cover'] })], NOW);
    const before = registry.get('a')?.coverPositioning;

    const result = registry.reconcile([cloudDevice({ uuid: 'a', capabilities: ['cover'], coverPositioning: true })], NOW);

    expect(before).toBeUndefined();
    expect(result.updated).toBe(1);
    expect(registry.get('a')?.coverPositioning).toBe(true);
  });

  it('forgets the states of a device that was offline at one sync and online at the next', () => {
    const { registry } = registryWithEvents();
    registry.reconcile([cloudDevice({ uuid: 'a' })], NOW);
    registry.setChannel('a', 0, true, 'command', NOW);
    registry.reconcile([cloudDevice({ uuid: 'a', online: false })], NOW);

    registry.reconcile([cloudDevice({ uuid: 'a' })], NOW);

    expect(registry.get('a')?.channels[0]?.on).toBeNull();
  });

  it('forgets the states of a device whose command channel goes down (pushes are missed), until they are read again', () => {
    const { registry } = registryWithEvents();
    registry.reconcile([cloudDevice({ uuid: 'a' })], NOW);
    registry.setChannel('a', 0, true, 'push', NOW);
    const whileUp = registry.get('a')?.channels[0]?.on;

    registry.update(cloudDevice({ uuid: 'a', commandReady: false }), NOW);
    const whileDown = registry.get('a')?.channels[0]?.on;
    registry.update(cloudDevice({ uuid: 'a', commandReady: true }), NOW);

    expect(whileUp).toBe(true);
    expect(whileDown).toBeNull();
    expect(registry.get('a')?.channels[0]?.on).toBeNull();
  });

  it('keeps states across a sync that only renames a channel, and drops channels that disappeared', () => {
    const { registry } = registryWithEvents();
    const two = [
      { channel: 0, name: 'A' },
      { channel: 1, name: 'B' },
    ];
    registry.reconcile([cloudDevice({ uuid: 's', channels: two })], NOW);
    registry.setChannel('s', 0, true, 'push', NOW);
    registry.setChannel('s', 1, false, 'push', NOW);

    const result = registry.reconcile([cloudDevice({ uuid: 's', channels: [{ channel: 0, name: 'Lamp' }] })], NOW);

    expect(result).toEqual({ total: 1, added: 0, removed: 0, updated: 1 });
    expect(registry.get('s')?.channels).toEqual([{ channel: 0, name: 'Lamp', on: true }]);
  });

  it('ignores a device description pushed for a device no sync has brought in', () => {
    const { registry, events } = registryWithEvents();

    registry.update(cloudDevice({ uuid: 'stranger' }), NOW);

    expect(registry.list()).toEqual([]);
    expect(events).toEqual([]);
  });

  it('announces a command channel coming up as a device change, and presence changes as online events', () => {
    const { registry, events } = registryWithEvents();
    registry.reconcile([cloudDevice({ uuid: 'a', online: false, commandReady: false })], NOW);
    events.length = 0;

    registry.update(cloudDevice({ uuid: 'a', online: true, commandReady: true }), NOW);

    expect(events.map((e) => e.type)).toEqual(['device', 'online']);
    expect(events[1]).toMatchObject({ uuid: 'a', online: true, controllable: true });
  });

  it('announces a channel state only when it changes', () => {
    const { registry, events } = registryWithEvents();
    registry.reconcile([cloudDevice({ uuid: 'a' })], NOW);
    events.length = 0;

    registry.setChannel('a', 0, true, 'command', NOW);
    registry.setChannel('a', 0, true, 'push', NOW);
    registry.setChannel('a', 7, true, 'push', NOW);

    expect(events).toEqual([{ type: 'channel', uuid: 'a', name: 'Device a', channel: 0, on: true, source: 'command' }]);
  });

  it('hands out copies that callers cannot use to change its state', () => {
    const { registry } = registryWithEvents();
    registry.reconcile([cloudDevice({ uuid: 'a' })], NOW);

    registry.get('a')!.channels[0]!.on = true;
    registry.list()[0]!.name = 'changed';

    expect(registry.get('a')).toMatchObject({ name: 'Device a', channels: [{ on: null }] });
  });
});
