import request from 'supertest';
import { describe, expect, it } from 'vitest';
import type { DeviceEvent } from '../../src/domain/device-events.js';
import { cloudDevice, FakeDeviceCloud, garageDoorOpener } from '../fakes/fake-device-cloud.js';
import { buildTestApp } from '../support/test-app.js';

const DOOR = 'door-1';

async function setup() {
  const cloud = new FakeDeviceCloud([cloudDevice({ uuid: 'plug-1', name: 'Desk Lamp' }), garageDoorOpener({ uuid: DOOR, name: 'Garage' })]);
  const built = await buildTestApp({ cloud });
  const seen: DeviceEvent[] = [];
  built.devices.onEvent((e) => seen.push(e));
  const events = () => seen as Array<DeviceEvent & { state?: string; source?: string }>;
  return { ...built, cloud, events };
}

describe('garage door openers', () => {
  it('lists the opener with its capability, not switchable, not controllable', async () => {
    const { app } = await setup();

    const res = await request(app).get(`/devices/${DOOR}`);

    expect(res.body).toMatchObject({ capabilities: ['garageDoor'], switchable: false, controllable: false });
    expect((await request(app).get('/devices/plug-1')).body.capabilities).toEqual(['switch']);
  });

  it('refuses toggle and channel commands with 409 naming the garage door endpoints, and sends nothing', async () => {
    const { app, cloud } = await setup();

    const toggle = await request(app).post(`/devices/${DOOR}/toggle`).send({ channel: 0 });
    const put = await request(app).put(`/devices/${DOOR}/channels/0`).send({ on: true });

    for (const res of [toggle, put]) {
      expect(res.status).toBe(409);
      expect(res.body.solution).toBe(`Open or close it with POST /devices/${DOOR}/garage-door/{channel}/open or /close`);
      expect(res.body.details).toEqual([{ path: 'device', message: 'the device is a garage door opener; it is never sent a switch command' }]);
    }
    expect(cloud.callsOf('setChannel')).toEqual([]);
    expect(cloud.callsOf('readChannels')).toEqual([]);
  });

  it('opens with the opener answering "opening", then a push says open; a second open sends nothing', async () => {
    const { app, cloud, events } = await setup();

    const first = await request(app).post(`/devices/${DOOR}/garage-door/0/open`);
    const again = await request(app).post(`/devices/${DOOR}/garage-door/0/open`);
    cloud.emit({ type: 'garageDoor', uuid: DOOR, channel: 0, state: 'open', source: 'push' });
    const state = await request(app).get(`/devices/${DOOR}/garage-door`);

    expect(first.body).toEqual({ status: 'success', device: 'Garage', action: 'open', channel: 0, state: 'opening', sent: true });
    expect(again.body).toMatchObject({ state: 'opening', sent: false });
    expect(cloud.callsOf('setGarageDoor')).toEqual([[DOOR, 0, true]]);
    expect(state.body).toMatchObject({ uuid: DOOR, name: 'Garage', doors: [{ channel: 0, state: 'open', at: expect.any(String) }] });
    expect(cloud.callsOf('readGarageDoors')).toEqual([]);
    expect(
      events()
        .filter((e) => e.type === 'garageDoor')
        .map((e) => [e.state, e.source]),
    ).toEqual([
      ['opening', 'command'],
      ['open', 'push'],
    ]);
  });

  it('reads the doors once when unknown, then answers from what it knows; a button press shows in GET and /events', async () => {
    const { app, cloud, events } = await setup();

    const first = await request(app).get(`/devices/${DOOR}/garage-door`);
    await request(app).get(`/devices/${DOOR}/garage-door`);
    cloud.pressGarageButton(DOOR, 0);
    const after = await request(app).get(`/devices/${DOOR}/garage-door`);

    expect(first.body.doors).toEqual([{ channel: 0, state: 'closed', at: expect.any(String) }]);
    expect(cloud.callsOf('readGarageDoors')).toHaveLength(1);
    expect(after.body.doors[0].state).toBe('open');
    expect(events()).toContainEqual({ type: 'garageDoor', uuid: DOOR, name: 'Garage', channel: 0, state: 'open', source: 'push' });
  });

  it('answers 409 for door actions on a plug and 400 for a door the opener does not have, sending nothing', async () => {
    const { app, cloud } = await setup();

    const plug = await request(app).post('/devices/plug-1/garage-door/0/open');
    const badDoor = await request(app).post(`/devices/${DOOR}/garage-door/3/close`);
    const readPlug = await request(app).get('/devices/plug-1/garage-door');

    expect(plug.status).toBe(409);
    expect(plug.body.details).toEqual([{ path: 'device', message: 'the device has no garageDoor capability' }]);
    expect(readPlug.status).toBe(409);
    expect(badDoor.status).toBe(400);
    expect(badDoor.body.details[0].path).toBe('channel');
    expect(cloud.callsOf('setGarageDoor')).toEqual([]);
    expect(cloud.callsOf('readGarageDoors')).toEqual([]);
  });

  it('forgets what it knew when the opener goes offline, and refuses commands while it is', async () => {
    const { app, cloud } = await setup();
    await request(app).get(`/devices/${DOOR}/garage-door`);

    cloud.setOnline(DOOR, false);
    const offline = await request(app).post(`/devices/${DOOR}/garage-door/0/open`);

    expect(offline.status).toBe(409);
    expect(offline.body.details).toEqual([{ path: 'device', message: 'the device is offline' }]);
    expect(cloud.callsOf('setGarageDoor')).toEqual([]);
  });
});
