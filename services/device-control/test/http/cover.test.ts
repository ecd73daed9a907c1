import request from 'supertest';
import { describe, expect, it } from 'vitest';
import type { DeviceEvent } from '../../src/domain/device-events.js';
import { FakeDeviceCloud, rollerShutter } from '../fakes/fake-device-cloud.js';
import { buildTestApp } from '../support/test-app.js';

const BLINDS = 'blinds-1';
const OLD = 'old-blinds';

async function setup() {
  const cloud = new FakeDeviceCloud([
    rollerShutter({ uuid: BLINDS, name: 'Blinds' }),
    rollerShutter({ uuid: OLD, name: 'Old blinds', coverPositioning: false }),
  ]);
  const built = await buildTestApp({ cloud });
  const seen: DeviceEvent[] = [];
  built.devices.onEvent((e) => seen.push(e));
  return { ...built, cloud, covers: () => seen.filter((e) => e.type === 'cover') };
}

describe('covers (roller shutters)', () => {
  it('are listed with the cover capability and refuse toggle and channel commands, sending nothing', async () => {
    const { app, cloud } = await setup();

    const listed = await request(app).get(`/devices/${BLINDS}`);
    const toggle = await request(app).post(`/devices/${BLINDS}/toggle`).send({});

    expect(listed.body).toMatchObject({ capabilities: ['cover'], switchable: false, controllable: false });
    expect(toggle.status).toBe(409);
    expect(toggle.body.details).toEqual([{ path: 'device', message: 'the device is a cover (roller shutter); it is never sent a switch command' }]);
    expect(toggle.body.solution).toBe(
      `Move it with POST /devices/${BLINDS}/cover/{channel}/open, /close or /stop, or PUT /devices/${BLINDS}/cover/{channel}/position`,
    );
    expect(cloud.callsOf('setChannel')).toEqual([]);
  });

  it('opens: acknowledged as opening, pushes bring position and idle; opening again sends nothing', async () => {
    const { app, cloud, covers } = await setup();

    const opened = await request(app).post(`/devices/${BLINDS}/cover/0/open`);
    cloud.emit({ type: 'cover', uuid: BLINDS, channel: 0, position: 100, source: 'push' });
    cloud.emit({ type: 'cover', uuid: BLINDS, channel: 0, motion: 'idle', source: 'push' });
    const state = await request(app).get(`/devices/${BLINDS}/cover`);
    const again = await request(app).post(`/devices/${BLINDS}/cover/0/open`);

    expect(opened.body).toEqual({
      status: 'success',
      device: 'Blinds',
      action: 'open',
      channel: 0,
      target: 100,
      position: null,
      motion: 'opening',
      sent: true,
    });
    expect(state.body).toMatchObject({ positioning: true, covers: [{ channel: 0, position: 100, motion: 'idle' }] });
    expect(again.body).toMatchObject({ sent: false, position: 100, motion: 'idle' });
    expect(cloud.callsOf('moveCover')).toEqual([[BLINDS, 0, 100]]);
    expect(cloud.callsOf('readCovers')).toEqual([]);
    expect(covers().map((e) => [e.type === 'cover' && e.position, e.type === 'cover' && e.motion, e.type === 'cover' && e.source])).toEqual([
      [null, 'opening', 'command'],
      [100, 'opening', 'push'],
      [100, 'idle', 'push'],
    ]);
  });

  it('moves to a position after reading where it is (to know the way), and stops', async () => {
    const { app, cloud } = await setup();

    const moved = await request(app).put(`/devices/${BLINDS}/cover/0/position`).send({ position: 40 });
    const stopped = await request(app).post(`/devices/${BLINDS}/cover/0/stop`);

    expect(moved.body).toMatchObject({ action: 'position', target: 40, position: 0, motion: 'opening', sent: true });
    expect(stopped.body).toMatchObject({ action: 'stop', target: null, motion: 'idle', sent: true });
    expect(cloud.callsOf('readCovers')).toEqual([[BLINDS]]);
    expect(cloud.callsOf('moveCover')).toEqual([
      [BLINDS, 0, 40],
      [BLINDS, 0, 'stop'],
    ]);
  });

  it('answers 400 naming the field and range for a bad position, 409 for a position an old cover cannot take; nothing sent', async () => {
    const { app, cloud } = await setup();

    const tooHigh = await request(app).put(`/devices/${BLINDS}/cover/0/position`).send({ position: 150 });
    const fraction = await request(app).put(`/devices/${BLINDS}/cover/0/position`).send({ position: 12.5 });
    const old = await request(app).put(`/devices/${OLD}/cover/0/position`).send({ position: 40 });
    const oldFull = await request(app).put(`/devices/${OLD}/cover/0/position`).send({ position: 100 });

    expect(tooHigh.status).toBe(400);
    expect(tooHigh.body.details).toEqual([{ path: 'body.position', message: 'must be between 0 and 100' }]);
    expect(fraction.status).toBe(400);
    expect(old.status).toBe(409);
    expect(old.body.solution).toContain(`POST /devices/${OLD}/cover/0/open or /close`);
    expect(oldFull.status).toBe(200);
    expect(cloud.callsOf('moveCover')).toEqual([[OLD, 0, 100]]);
  });

  it('answers 409 for cover actions on anything else', async () => {
    const { app, cloud } = await setup();
    cloud.addDevice({ ...rollerShutter({ uuid: 'plug-9' }), type: 'mss310', capabilities: ['switch'], switchable: true });
    await request(app).post('/devices/sync');

    const res = await request(app).post('/devices/plug-9/cover/0/open');

    expect(res.status).toBe(409);
    expect(res.body.details).toEqual([{ path: 'device', message: 'the device has no cover capability' }]);
    expect(cloud.callsOf('moveCover')).toEqual([]);
  });
});
