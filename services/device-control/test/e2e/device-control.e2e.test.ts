import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '@homeops/test-kit';
import type { EmulatedAccount, MerossEmulator } from '../emulator/meross-emulator.js';
import { startEmulatedSetup, type EmulatedSetup } from './emulated-setup.js';
import { leakedSecrets } from '../emulator/child-output.js';
import { SseClient } from '../support/sse-client.js';
import type { EmulatedService } from './service-process.js';

const PLUG = 'plug0000000000000000000000000001';
const STRIP = 'strip000000000000000000000000002';
const OLD_PLUG = 'oldplug0000000000000000000000003';
const HUB = 'hub00000000000000000000000000004';

const md5 = (text: string) => createHash('md5').update(text).digest('hex');

interface DeviceBody {
  uuid: string;
  name: string;
  online: boolean;
  controllable: boolean;
  channels: Array<{ channel: number; name: string; on: boolean | null }>;
}

describe('device-control end to end: src/main.ts with CLOUD_BACKEND=meross against the emulated Meross cloud', { timeout: 20_000 }, () => {
  let setup: EmulatedSetup | undefined;
  let account: EmulatedAccount;
  let emulator: MerossEmulator;
  let service: EmulatedService;

  beforeAll(async () => {
    // One service runs every test of this suite back to back, some 25 cloud messages within a minute (each device's
    // first command also reads its abilities): the burst window is widened here; the budget has its own suites.
    setup = await startEmulatedSetup('e2e', { CLOUD_MAX_MESSAGES_PER_MINUTE: '40' });
    ({ account, emulator, service } = setup);
    await eventually(
      async () => {
        const devices = (await service.request('GET', '/devices')).body as DeviceBody[];
        return devices.length === 4 && devices.filter((d) => d.controllable).length === 3;
      },
      { what: 'the devices to be listed and controllable', timeoutMs: 15_000 },
    );
  }, 30_000);

  afterAll(async () => {
    await setup?.stop();
  });

  async function device(uuid: string): Promise<DeviceBody> {
    return (await service.request('GET', `/devices/${uuid}`)).body as DeviceBody;
  }

  it('GET /devices lists every device of the account after one sign-in, and /health reports the meross session', async () => {
    const list = await service.request('GET', '/devices');
    const health = await service.request('GET', '/health');

    expect(list.status).toBe(200);
    const devices = list.body as DeviceBody[];
    expect(devices.map((d) => d.uuid).sort()).toEqual([HUB, OLD_PLUG, PLUG, STRIP].sort());
    expect(devices.find((d) => d.uuid === STRIP)).toMatchObject({
      name: 'Power strip',
      type: 'mss425f',
      online: true,
      controllable: true,
      channels: [
        { channel: 0, name: 'All' },
        { channel: 1, name: 'Monitor' },
        { channel: 2, name: 'Printer' },
        { channel: 3, name: 'Router' },
        { channel: 4, name: 'USB' },
      ],
    });
    expect(devices.find((d) => d.uuid === HUB)).toMatchObject({ controllable: false });
    expect(emulator.api.calls.signIn).toBe(1);
    expect(health.status).toBe(200);
    expect(health.body).toMatchObject({ backend: 'meross', cloud: { state: 'connected' }, devices: { total: 4 } });
  });

  it('POST /devices/:uuid/toggle flips the channel on the device both ways', async () => {
    const first = await service.request('POST', `/devices/${STRIP}/toggle`, { channel: 1 });
    const stateAfterFirst = emulator.device(STRIP).isOn(1);
    const second = await service.request('POST', `/devices/${STRIP}/toggle`, { channel: 1 });

    expect(first.status).toBe(200);
    expect(first.body).toEqual({ status: 'success', device: 'Power strip', action: 'toggle', channel: 1, on: true });
    expect(stateAfterFirst).toBe(true);
    expect(second.body).toMatchObject({ action: 'toggle', channel: 1, on: false });
    expect(emulator.device(STRIP).isOn(1)).toBe(false);
    expect((await device(STRIP)).channels[1]?.on).toBe(false);
  });

  it('PUT /devices/:uuid/channels/:channel switches to the asked state', async () => {
    const res = await service.request('PUT', `/devices/${STRIP}/channels/3`, { on: true });

    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'success', action: 'on', channel: 3, on: true });
    expect(emulator.device(STRIP).isOn(3)).toBe(true);
  });

  it('toggles an old single-channel plug with Appliance.Control.Toggle', async () => {
    const res = await service.request('POST', `/devices/${OLD_PLUG}/toggle`, {});

    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ device: 'Old plug', channel: 0, on: true });
    expect(emulator.device(OLD_PLUG).isOn(0)).toBe(true);
    expect(emulator.requests('Appliance.Control.Toggle', 'SET')).toHaveLength(1);
  });

  it('shows a physical button press in GET /devices and on /events', async () => {
    const events = await SseClient.connect(`${service.baseUrl}/events`);
    expect(events.status).toBe(200);
    try {
      emulator.pressButton(PLUG, 0);

      const event = await eventually(
        () => events.events.find((e) => e.event === 'channel' && (e.data as { uuid: string }).uuid === PLUG),
        'the channel event on /events',
      );
      expect(event.data).toMatchObject({ uuid: PLUG, channel: 0, on: true, source: 'push' });
      expect((await device(PLUG)).channels[0]?.on).toBe(true);
    } finally {
      await events.close();
    }
  });

  it('answers 502 with the device code when the device replies ERROR', async () => {
    emulator.device(STRIP).errorCode = 5020;
    try {
      const res = await service.request('PUT', `/devices/${STRIP}/channels/4`, { on: true });

      expect(res.status).toBe(502);
      expect((res.body as { error: string }).error).toContain('5020');
      expect(emulator.device(STRIP).isOn(4)).toBe(false);
    } finally {
      emulator.device(STRIP).errorCode = null;
    }
  });

  it('answers 504 when the device never replies', async () => {
    emulator.device(STRIP).dropReplies = true;
    try {
      const res = await service.request('PUT', `/devices/${STRIP}/channels/2`, { on: true });

      expect(res.status).toBe(504);
      expect(res.body).toMatchObject({ error: expect.any(String), solution: expect.any(String) });
    } finally {
      emulator.device(STRIP).dropReplies = false;
    }
  });

  it('answers 409 "Device not controllable" once the device went offline', async () => {
    emulator.setOnline(PLUG, false);
    await eventually(async () => (await device(PLUG)).online === false, 'the device to show offline');

    const res = await service.request('POST', `/devices/${PLUG}/toggle`, { channel: 0 });

    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ error: 'Device not controllable', solution: 'Check synchronization' });
    expect(emulator.requests('Appliance.Control.ToggleX', 'SET').filter((r) => r.uuid === PLUG)).toHaveLength(0);
  });

  it('writes no password, password md5, token or key to its output (stdout and stderr), any body or /events', async () => {
    const events = await SseClient.connect(`${service.baseUrl}/events`);
    expect(events.status).toBe(200);
    const before = await service.request('GET', '/devices');
    const toggled = await service.request('POST', `/devices/${STRIP}/toggle`, { channel: 2 });
    await eventually(() => events.events.find((e) => e.event === 'channel' && (e.data as { channel: number }).channel === 2), 'the toggle event');
    const health = await service.request('GET', '/health');
    await events.close();
    const exited = await service.stop();

    expect(before.status).toBe(200);
    expect(toggled.status).toBe(200);
    expect(exited).toEqual({ code: 0, signal: null });
    expect(emulator.api.issuedTokens).toHaveLength(1);
    const secrets = {
      password: account.password,
      passwordMd5: md5(account.password),
      token: emulator.api.issuedTokens[0] ?? 'missing',
      key: account.key,
      mqttPassword: md5(`${account.userId}${account.key}`),
    };
    expect(service.output).toContain('listening');
    expect(leakedSecrets(service.output, secrets)).toEqual([]);
    const served = [...service.bodies, JSON.stringify(events.events)].join('\n');
    expect(served).toContain('Power strip');
    expect(Object.entries(secrets).filter(([, value]) => served.includes(value))).toEqual([]);
    expect(health.status).toBe(200);
  });
});
