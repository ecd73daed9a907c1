import { ErrorBodySchema, type Grant } from '@homeops/common';
import { afterEach, describe, expect, it } from 'vitest';
import type { ServedApp } from '../hostile/served-app.js';
import { bearer, BULB, COVER, createToken, GARAGE, PLUG, serveHouse, withKey } from './access-fixture.js';

// What a devices:control token's limits let through to the devices, and that a refusal never reaches the cloud.

let house: (ServedApp & { base: string }) | undefined;
afterEach(async () => {
  await house?.stop();
  house = undefined;
});

async function send(method: string, path: string, secret: string, body?: unknown): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${house!.base}${path}`, {
    method,
    headers: { ...bearer(secret), ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: await res.json() };
}

async function tokenWith(grant: Grant): Promise<string> {
  return (await createToken(house!.base, [grant])).secret;
}

describe('device commands with a devices:read token', () => {
  it('answers 403 naming devices:control in the common error body, and the channel stays as it was', async () => {
    house = await serveHouse();
    const reader = await tokenWith({ scope: 'devices:read' });

    const set = await send('PUT', `/devices/${PLUG}/channels/0`, reader, { on: true });
    const toggle = await send('POST', `/devices/${PLUG}/toggle`, reader, { channel: 0 });

    for (const res of [set, toggle]) {
      expect(res.status).toBe(403);
      expect(ErrorBodySchema.parse(res.body)).toMatchObject({ code: 'SCOPE_MISSING', error: expect.stringContaining('devices:control') });
      expect((res.body as { solution: string }).solution).toContain('devices:control');
    }
    expect(house.cloud.stateOf(PLUG, 0)).toBe(false);
    expect(house.cloud.callsOf('setChannel')).toEqual([]);
    expect(house.cloud.callsOf('readChannels')).toEqual([]);
  });
});

describe('device commands with a devices:control token limited to some devices', () => {
  it('switches the listed devices and refuses the others (an unknown one too) before the cloud hears of it', async () => {
    house = await serveHouse();
    const shortcut = await tokenWith({ scope: 'devices:control', devices: [PLUG, COVER] });

    const plug = await send('POST', `/devices/${PLUG}/toggle`, shortcut, { channel: 0 });
    const bulb = await send('PUT', `/devices/${BULB}/channels/0`, shortcut, { on: true });
    const unknown = await send('POST', '/devices/no-such-device/toggle', shortcut, { channel: 0 });

    expect(plug).toMatchObject({ status: 200, body: { on: true } });
    expect(house.cloud.stateOf(PLUG, 0)).toBe(true);
    // 403 rather than 404: a limited token learns nothing about devices outside its limit.
    expect([bulb.status, unknown.status]).toEqual([403, 403]);
    expect(bulb.body).toMatchObject({ code: 'SCOPE_MISSING', error: expect.stringContaining(BULB) });
    expect(house.cloud.stateOf(BULB, 0)).toBe(false);
    expect(house.cloud.callsOf('setChannel')).toEqual([[PLUG, 0, true]]);
  });
});

describe('device commands with a devices:control token that excepts garage doors', () => {
  it('switches a plug but never moves the garage door, through its own routes or a channel command', async () => {
    house = await serveHouse();
    const homeAssistant = await tokenWith({ scope: 'devices:control', exceptFamilies: ['garageDoor'] });

    const plug = await send('PUT', `/devices/${PLUG}/channels/0`, homeAssistant, { on: true });
    const open = await send('POST', `/devices/${GARAGE}/garage-door/0/open`, homeAssistant);
    const close = await send('POST', `/devices/${GARAGE}/garage-door/0/close`, homeAssistant);
    const asSwitch = await send('POST', `/devices/${GARAGE}/toggle`, homeAssistant, { channel: 0 });

    expect(plug.status).toBe(200);
    expect([open.status, close.status]).toEqual([403, 403]);
    expect(open.body).toMatchObject({ code: 'SCOPE_MISSING', error: expect.stringContaining('garageDoor') });
    // A channel command is of the switch family; the domain never sends one to an opener.
    expect(asSwitch).toMatchObject({ status: 409, body: { code: 'DEVICE_NOT_CONTROLLABLE' } });
    expect(house.cloud.callsOf('setGarageDoor')).toEqual([]);
    expect(house.cloud.callsOf('setChannel')).toEqual([[PLUG, 0, true]]);
  });
});

describe('device commands with a devices:control token limited to some families', () => {
  it("sets a light's brightness but not its on/off, which is a switch command", async () => {
    house = await serveHouse();
    const lights = await tokenWith({ scope: 'devices:control', families: ['light'] });

    const brightness = await send('PUT', `/devices/${BULB}/light/0`, lights, { brightness: 30 });
    const on = await send('PUT', `/devices/${BULB}/channels/0`, lights, { on: true });

    expect(brightness.status).toBe(200);
    expect(on).toMatchObject({ status: 403, body: { code: 'SCOPE_MISSING', error: expect.stringContaining('(switch)') } });
    expect(house.cloud.callsOf('setLight')).toEqual([[BULB, 0, { brightness: 30 }]]);
    expect(house.cloud.callsOf('setChannel')).toEqual([]);
  });
});

describe('a token limited by family', () => {
  it('is refused at creation when a family is misspelt (it would limit nothing)', async () => {
    house = await serveHouse();
    const res = await fetch(`${house.base}/tokens`, {
      method: 'POST',
      headers: { ...withKey, 'Content-Type': 'application/json' },
      body: JSON.stringify({ label: 'ha', scopes: [{ scope: 'devices:control', exceptFamilies: ['garage-door'] }] }),
    });
    const body = (await res.json()) as { code: string; details: Array<{ path: string; message: string }> };
    expect(res.status).toBe(400);
    expect(body.code).toBe('VALIDATION_FAILED');
    expect(body.details).toEqual([{ path: 'body.scopes', message: expect.stringContaining('garage-door is not a device family') }]);
  });
});
