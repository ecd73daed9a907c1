import { ManualClock } from '@homeops/common';
import { eventually } from '@homeops/test-kit';
import request from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';
import { cloudDevice, garageDoorOpener } from '../fakes/fake-device-cloud.js';
import { buildTestApp, type TestApp } from '../support/test-app.js';
import { LanFakeCloud, lanLink } from './lan-fake-cloud.js';

let t: TestApp;
afterEach(async () => {
  await t?.close();
});

/** A plug on the LAN at 127.0.1.1, one on the cloud, and a garage door on the LAN. */
function house(): LanFakeCloud {
  return new LanFakeCloud([
    cloudDevice({ uuid: 'lan-plug', name: 'LAN plug', link: lanLink('127.0.1.1:8001') }),
    cloudDevice({ uuid: 'cloud-plug', name: 'Cloud plug' }),
    garageDoorOpener({ uuid: 'lan-door', name: 'Door', link: lanLink('127.0.1.2') }),
  ]);
}

/** The app on the LAN house, once the cloud plug (no address known) was read through the cloud for its address. */
async function started(cloud: LanFakeCloud): Promise<TestApp> {
  const app = await buildTestApp({ cloud });
  await eventually(() => cloud.discoveries.includes('cloud-plug'), 'the address discovery');
  return app;
}

const sentOf = async (app: TestApp['app']) => (await request(app).get('/health')).body.budget.sent as { api: number; mqtt: number; lan: number };

describe('commands to a device on the LAN', () => {
  it('answers 200 with the cloud budget spent, costs no cloud message and is counted as lan in /health', async () => {
    const cloud = house();
    t = await buildTestApp({ cloud, service: { maxMessagesPerMinute: 1, maxMessagesPerHour: 1 } });
    // The startup sync used the one message there is.

    const lan = await request(t.app).put('/devices/lan-plug/channels/0').send({ on: true });
    const door = await request(t.app).post('/devices/lan-door/garage-door/0/open').send({});
    const viaCloud = await request(t.app).put('/devices/cloud-plug/channels/0').send({ on: true });

    expect([lan.status, door.status, viaCloud.status]).toEqual([200, 200, 429]);
    expect(cloud.stateOf('lan-plug', 0)).toBe(true);
    expect(cloud.callsOf('setChannel')).toEqual([]);
    expect(await sentOf(t.app)).toEqual({ api: 1, mqtt: 0, lan: 2 });
    expect((await request(t.app).get('/health')).body.budget.windows[0]).toMatchObject({ used: 1 });
  });

  it('toggles a LAN device of unknown state with a LAN read, then a LAN switch', async () => {
    const cloud = house();
    t = await started(cloud);

    const res = await request(t.app).post('/devices/lan-plug/toggle').send({});

    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ on: true });
    expect(cloud.lanCalls.map((c) => c.what)).toEqual(['readChannels', 'setChannel']);
    // Only the discovery of the cloud plug's address went through the cloud.
    expect((await sentOf(t.app)).mqtt).toBe(1);
  });
});

describe('a LAN address that stops answering', () => {
  it('falls back to the cloud within the same request, inside the budget, after one read that looks for a new address', async () => {
    const cloud = house();
    t = await started(cloud);
    cloud.silence('lan-plug');

    const res = await request(t.app).put('/devices/lan-plug/channels/0').send({ on: true });
    const device = await request(t.app).get('/devices/lan-plug');

    expect(res.status).toBe(200);
    expect(cloud.callsOf('setChannel')).toEqual([['lan-plug', 0, true]]);
    expect(cloud.refreshes).toEqual([{ uuid: 'lan-plug', lanOnly: false }]);
    expect(device.body).toMatchObject({ transport: 'cloud', address: '127.0.1.1:8001', lanProblem: 'no answer' });
    // The list, the cloud plug's discovery, the read that learns the address, the command: all admitted to the budget.
    expect(await sentOf(t.app)).toEqual({ api: 1, mqtt: 3, lan: 1 });
  });

  it('takes the LAN again at once when the read through the cloud tells a new address (DHCP)', async () => {
    const cloud = house();
    t = await buildTestApp({ cloud });
    cloud.silence('lan-plug');
    cloud.movedTo.set('lan-plug', '127.0.1.9:8001');
    cloud.silence('lan-plug', false);
    cloud.silence('lan-plug');
    // The old address is silent; the device answers at the new one.
    const answerAtNewAddress = cloud.refresh.bind(cloud);
    cloud.refresh = async (uuid, lanOnly) => {
      await answerAtNewAddress(uuid, lanOnly);
      cloud.silence(uuid, false);
    };

    const res = await request(t.app).put('/devices/lan-plug/channels/0').send({ on: true });

    expect(res.status).toBe(200);
    expect(cloud.callsOf('setChannel')).toEqual([]);
    expect((await request(t.app).get('/devices/lan-plug')).body).toMatchObject({ transport: 'lan', address: '127.0.1.9:8001' });
  });

  it('answers 429 and sends nothing to the cloud when the budget has no room for the fallback', async () => {
    const cloud = house();
    t = await buildTestApp({ cloud, service: { maxMessagesPerMinute: 1, maxMessagesPerHour: 1 } });
    cloud.silence('lan-plug');

    const res = await request(t.app).put('/devices/lan-plug/channels/0').send({ on: true });

    expect(res.status).toBe(429);
    expect(cloud.callsOf('setChannel')).toEqual([]);
    expect(cloud.refreshes).toEqual([]);
  });

  it('answers 504 without a second try when the cloud is down too, and the device shows unreachable', async () => {
    const cloud = house();
    t = await buildTestApp({ cloud });
    cloud.setSession('locked-out');
    cloud.silence('lan-plug');

    const res = await request(t.app).put('/devices/lan-plug/channels/0').send({ on: true });
    const again = await request(t.app).put('/devices/lan-plug/channels/0').send({ on: true });

    expect(res.status).toBe(504);
    expect(res.body.error).toMatch(/did not answer over the LAN/);
    expect(again.status).toBe(409);
    expect(again.body.details[0].message).toMatch(/neither the LAN \(127\.0\.1\.1:8001: no answer\) nor the cloud/);
    expect(cloud.lanCalls.filter((c) => c.what === 'setChannel')).toHaveLength(1);
    expect(cloud.callsOf('setChannel')).toEqual([]);
  });
});

describe('polling over the LAN while pushes do not arrive', () => {
  it('reads every device without pushes and with an address each interval, never through the cloud', async () => {
    const clock = new ManualClock();
    const cloud = house();
    t = await buildTestApp({ cloud, clock, service: { lanPollSeconds: 30 } });
    await eventually(() => cloud.discoveries.length === 1, 'the discovery of the cloud plug');
    cloud.setSession('locked-out');
    cloud.relink('lan-plug', { pushes: false });
    cloud.relink('lan-door', { pushes: false });
    cloud.relink('cloud-plug', { transport: 'unreachable', pushes: false });
    // Pushes stopped: each is read at once.
    await eventually(() => cloud.refreshes.length === 2, 'the first polls');
    cloud.setState('lan-plug', 0, true);

    clock.advance(30_000);
    await eventuallyDevice(t, 'lan-plug', (d) => d.channels[0]!.on === true);
    clock.advance(30_000);
    await eventually(() => cloud.refreshes.length === 6, 'the second interval');

    expect(cloud.refreshes.slice(2)).toEqual([
      { uuid: 'lan-plug', lanOnly: true },
      { uuid: 'lan-door', lanOnly: true },
      { uuid: 'lan-plug', lanOnly: true },
      { uuid: 'lan-door', lanOnly: true },
    ]);
    // The one message is the cloud plug's address discovery, before the cloud went away.
    expect((await sentOf(t.app)).mqtt).toBe(1);
  });

  it('does not poll while pushes arrive', async () => {
    const clock = new ManualClock();
    const cloud = house();
    t = await buildTestApp({ cloud, clock, service: { lanPollSeconds: 30 } });

    clock.advance(120_000);

    expect(cloud.refreshes).toEqual([]);
  });
});

describe('a start while the cloud cannot be reached', () => {
  it('lists the devices of the stored list and controls them over the LAN', async () => {
    const cloud = house();
    cloud.stored = [cloudDevice({ uuid: 'lan-plug', name: 'LAN plug', link: lanLink('127.0.1.1:8001', { pushes: false }) })];
    cloud.failAlways('listDevices', 'unavailable');
    cloud.setSession('backing-off');

    t = await buildTestApp({ cloud });
    const list = await request(t.app).get('/devices');
    const res = await request(t.app).put('/devices/lan-plug/channels/0').send({ on: true });
    const health = await request(t.app).get('/health');

    expect(list.status).toBe(200);
    expect(list.body.map((d: { uuid: string }) => d.uuid)).toEqual(['lan-plug']);
    expect(res.status).toBe(200);
    expect(health.body).toMatchObject({
      status: 'ok',
      cloud: { state: 'backing-off' },
      sync: { ok: false, source: 'stored' },
      lan: { enabled: true, summary: '1 of 1 devices', lan: 1, cloud: 0, unreachable: 0 },
    });
  });

  it('answers 503 as before when no list was kept', async () => {
    const cloud = house();
    cloud.failAlways('listDevices', 'unavailable');

    t = await buildTestApp({ cloud });

    expect((await request(t.app).get('/devices')).status).toBe(503);
  });
});

describe('LAN address discovery', () => {
  it('reads each online device reached through the cloud without an address once, as background work, and only once', async () => {
    const cloud = house();
    t = await started(cloud);

    await request(t.app).post('/devices/sync');
    await request(t.app).post('/devices/sync');

    expect(cloud.discoveries).toEqual(['cloud-plug']);
  });

  it('spends nothing of the share of the budget kept for callers', async () => {
    const cloud = house();
    t = await buildTestApp({ cloud, service: { maxMessagesPerMinute: 2, maxMessagesPerHour: 100 } });

    await request(t.app).post('/devices/sync');

    expect(cloud.discoveries).toEqual([]);
  });
});

describe('GET /health with LAN control', () => {
  it('shows the LAN apart from the session, and each device the LAN refuses once among the problems', async () => {
    const cloud = house();
    t = await buildTestApp({ cloud });
    cloud.relink('lan-door', { transport: 'cloud', lanProblem: 'the device refused the account key over the LAN (5001); it uses the cloud' });

    const res = await request(t.app).get('/health');

    expect(res.body.lan).toEqual({
      enabled: true,
      summary: '1 of 3 devices',
      total: 3,
      lan: 1,
      cloud: 2,
      unreachable: 0,
      problems: [{ uuid: 'lan-door', name: 'Door', problem: 'the device refused the account key over the LAN (5001); it uses the cloud' }],
    });
    expect(res.body.problems).toEqual(['Door: the device refused the account key over the LAN (5001); it uses the cloud']);
  });

  it('is not degraded by a locked-out cloud while every device answers over the LAN, and is when one does not', async () => {
    const cloud = new LanFakeCloud([cloudDevice({ uuid: 'a', link: lanLink('127.0.1.1') }), cloudDevice({ uuid: 'b', link: lanLink('127.0.1.2') })]);
    t = await buildTestApp({ cloud });
    cloud.setSession('locked-out');

    const allOnLan = await request(t.app).get('/health');
    cloud.relink('b', { transport: 'unreachable', lanProblem: 'no answer' });
    const oneDown = await request(t.app).get('/health');

    expect(allOnLan.body).toMatchObject({ status: 'ok', cloud: { state: 'locked-out' }, lan: { summary: '2 of 2 devices' } });
    expect(oneDown.body.status).toBe('degraded');
    expect(oneDown.body.problems).toContain('1 device(s) answer neither over the LAN nor through the cloud');
  });
});

async function eventuallyDevice(app: TestApp, uuid: string, check: (d: { channels: Array<{ on: boolean | null }> }) => boolean): Promise<void> {
  await eventually(async () => check((await request(app.app).get(`/devices/${uuid}`)).body), `device ${uuid} as expected`);
}
