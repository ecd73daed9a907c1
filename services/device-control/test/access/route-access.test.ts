import { routeTableOf, type DeviceTarget, type Grant, type RouteAccess, type RouteEntry } from '@homeops/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEVICE_SCOPES } from '../../src/app.js';
import type { ServedApp } from '../hostile/served-app.js';
import { bearer, BULB, COVER, createToken, GARAGE, HUB, PLUG, serveHouse, THERMOSTAT, withKey } from './access-fixture.js';

// Every route of the route table, called by every kind of caller with a request an admin gets a 2xx for: each cell
// answers exactly 2xx, 401 or 403 as the route's access and the token's limits say. A route without an example fails.

interface House extends ServedApp {
  base: string;
}

/** A request that succeeds for an admin, and the device a command reaches (its family as the spec names it). */
interface Example {
  target?: DeviceTarget;
  request: (house: House) => Promise<{ path: string; body?: unknown }> | { path: string; body?: unknown };
}

/** A throwaway token for the routes that change, rotate or revoke one. */
const spareToken = async (house: House) => (await createToken(house.base, ['metrics'], { label: 'spare' })).id;

/** A throwaway watch for the route that removes one. */
const spareWatch = async (house: House) => {
  const name = `spare-${Math.random().toString(36).slice(2, 8)}`;
  const res = await fetch(`${house.base}/watches/${name}`, {
    method: 'PUT',
    headers: { ...withKey, 'Content-Type': 'application/json' },
    body: JSON.stringify(WATCH),
  });
  if (res.status !== 200) throw new Error(`the spare watch was refused: ${res.status} ${await res.text()}`);
  return name;
};
const WATCH = { condition: { kind: 'offline', device: PLUG, minutes: 5 }, notify: { recipient: 'family' } };

const EXAMPLES: Record<string, Example> = {
  'GET /watches': { request: () => ({ path: '/watches' }) },
  'PUT /watches/{name}': { request: () => ({ path: '/watches/plug-offline', body: WATCH }) },
  'DELETE /watches/{name}': { request: async (h) => ({ path: `/watches/${await spareWatch(h)}` }) },
  'GET /health': { request: () => ({ path: '/health' }) },
  'GET /metrics': { request: () => ({ path: '/metrics' }) },
  'GET /auth/me': { request: () => ({ path: '/auth/me' }) },
  'GET /tokens': { request: () => ({ path: '/tokens' }) },
  'POST /tokens': { request: () => ({ path: '/tokens', body: { label: 'from the table', scopes: ['metrics'] } }) },
  'PATCH /tokens/{id}': { request: async (h) => ({ path: `/tokens/${await spareToken(h)}`, body: { label: 'renamed' } }) },
  'POST /tokens/{id}/rotate': { request: async (h) => ({ path: `/tokens/${await spareToken(h)}/rotate` }) },
  'DELETE /tokens/{id}': { request: async (h) => ({ path: `/tokens/${await spareToken(h)}` }) },
  // The fake needs the MFA code again before each call, so an admin's login answers 200, not 409 CLOUD_LOGIN_NOT_NEEDED.
  'POST /cloud/login': {
    request: (h) => {
      h.cloud.setSession('needs-mfa');
      return { path: '/cloud/login', body: { mfaCode: h.cloud.acceptedMfaCode } };
    },
  },
  'GET /events': { request: () => ({ path: '/events' }) },
  'GET /devices': { request: () => ({ path: '/devices' }) },
  'POST /devices/sync': { request: () => ({ path: '/devices/sync' }) },
  'GET /devices/{uuid}': { request: () => ({ path: `/devices/${PLUG}` }) },
  'POST /devices/{uuid}/toggle': { target: { uuid: PLUG, family: 'switch' }, request: () => ({ path: `/devices/${PLUG}/toggle`, body: { channel: 0 } }) },
  'PUT /devices/{uuid}/channels/{channel}': {
    target: { uuid: BULB, family: 'switch' },
    request: () => ({ path: `/devices/${BULB}/channels/0`, body: { on: true } }),
  },
  'GET /devices/{uuid}/garage-door': { request: () => ({ path: `/devices/${GARAGE}/garage-door` }) },
  'POST /devices/{uuid}/garage-door/{channel}/open': {
    target: { uuid: GARAGE, family: 'garageDoor' },
    request: () => ({ path: `/devices/${GARAGE}/garage-door/0/open` }),
  },
  'POST /devices/{uuid}/garage-door/{channel}/close': {
    target: { uuid: GARAGE, family: 'garageDoor' },
    request: () => ({ path: `/devices/${GARAGE}/garage-door/0/close` }),
  },
  'GET /devices/{uuid}/cover': { request: () => ({ path: `/devices/${COVER}/cover` }) },
  'POST /devices/{uuid}/cover/{channel}/open': { target: { uuid: COVER, family: 'cover' }, request: () => ({ path: `/devices/${COVER}/cover/0/open` }) },
  'POST /devices/{uuid}/cover/{channel}/close': { target: { uuid: COVER, family: 'cover' }, request: () => ({ path: `/devices/${COVER}/cover/0/close` }) },
  'POST /devices/{uuid}/cover/{channel}/stop': { target: { uuid: COVER, family: 'cover' }, request: () => ({ path: `/devices/${COVER}/cover/0/stop` }) },
  'PUT /devices/{uuid}/cover/{channel}/position': {
    target: { uuid: COVER, family: 'cover' },
    request: () => ({ path: `/devices/${COVER}/cover/0/position`, body: { position: 40 } }),
  },
  'GET /devices/{uuid}/light': { request: () => ({ path: `/devices/${BULB}/light` }) },
  'PUT /devices/{uuid}/light/{channel}': {
    target: { uuid: BULB, family: 'light' },
    request: () => ({ path: `/devices/${BULB}/light/0`, body: { brightness: 30 } }),
  },
  'GET /devices/{uuid}/energy': { request: () => ({ path: `/devices/${PLUG}/energy` }) },
  'GET /devices/{uuid}/energy/daily': { request: () => ({ path: `/devices/${PLUG}/energy/daily` }) },
  'GET /devices/{uuid}/hub': { request: () => ({ path: `/devices/${HUB}/hub` }) },
  'PUT /devices/{uuid}/hub/{id}': {
    target: { uuid: HUB, family: 'hubSensors' },
    request: () => ({ path: `/devices/${HUB}/hub/valve-1`, body: { on: false } }),
  },
  'GET /devices/{uuid}/thermostat': { request: () => ({ path: `/devices/${THERMOSTAT}/thermostat` }) },
  'PUT /devices/{uuid}/thermostat/{channel}': {
    target: { uuid: THERMOSTAT, family: 'thermostat' },
    request: () => ({ path: `/devices/${THERMOSTAT}/thermostat/0`, body: { targetTemperature: 20 } }),
  },
};

/** A kind of caller: what it presents, and what the spec says it may do (written here, not asked of the code). */
interface Caller {
  name: string;
  /** The token's grants; undefined: no valid key or token at all. */
  grants?: Grant[];
  headers: () => Record<string, string>;
}

const LIMITED: Record<string, Grant[]> = {
  'admin token': [{ scope: 'admin' }],
  'metrics token': [{ scope: 'metrics' }],
  'devices:read token': [{ scope: 'devices:read' }],
  'devices:control token': [{ scope: 'devices:control' }],
  'control of two devices': [{ scope: 'devices:control', devices: [PLUG, GARAGE] }],
  'control but garage doors': [{ scope: 'devices:control', exceptFamilies: ['garageDoor'] }],
};

function expectedOf(access: RouteAccess, caller: Caller, target: DeviceTarget | undefined): string {
  if (access === 'public') return '2xx';
  if (!caller.grants) return '401 UNAUTHORIZED';
  if (access === 'authenticated') return '2xx';
  const grant = caller.grants.find((g) => g.scope === 'admin') ? { scope: access } : caller.grants.find((g) => g.scope === access);
  if (!grant) return `403 SCOPE_MISSING ${access}`;
  if (target && grant.devices && !grant.devices.includes(target.uuid)) return `403 SCOPE_MISSING ${access}`;
  if (target && grant.exceptFamilies?.includes(target.family)) return `403 SCOPE_MISSING ${access}`;
  return '2xx';
}

async function outcomeOf(res: Response, access: RouteAccess): Promise<string> {
  if (res.headers.get('content-type')?.startsWith('text/event-stream')) await res.body?.cancel();
  if (res.status >= 200 && res.status < 300) {
    if (!res.bodyUsed) await res.arrayBuffer();
    return '2xx';
  }
  const text = await res.text();
  const body = JSON.parse(text) as { code?: string; error?: string };
  if (res.status === 403) return `403 ${body.code} ${body.error?.includes(`${access} scope`) ? access : `(scope not named: ${body.error})`}`;
  return res.status === 401 ? `401 ${body.code}` : `${res.status} ${text}`;
}

const keyOf = (route: RouteEntry) => `${route.method.toUpperCase()} ${route.path}`;

describe('device-control access: every route of the route table by every kind of caller', () => {
  let house: House;
  const callers: Caller[] = [
    { name: 'no key', headers: () => ({}) },
    { name: 'unknown token', headers: () => bearer(`hop_0123456789ab_${'A'.repeat(43)}`) },
    { name: 'API key', grants: [{ scope: 'admin' }], headers: () => withKey },
  ];

  beforeAll(async () => {
    house = await serveHouse();
    for (const [name, grants] of Object.entries(LIMITED)) {
      const { secret } = await createToken(house.base, grants, { label: name });
      callers.push({ name, grants, headers: () => bearer(secret) });
    }
  });
  afterAll(async () => {
    await house?.stop();
  });

  it('has an example request for every route of the table, and none for a route it lacks', () => {
    const table = routeTableOf(house.app).map(keyOf);

    expect(table.filter((route) => !(route in EXAMPLES))).toEqual([]);
    expect(Object.keys(EXAMPLES).filter((route) => !table.includes(route))).toEqual([]);
  });

  it('answers each cell exactly 2xx, 401 or 403 as the access and the limits say', async () => {
    const mismatches: string[] = [];
    let cells = 0;

    for (const route of routeTableOf(house.app)) {
      const example = EXAMPLES[keyOf(route)];
      if (!example) throw new Error(`${keyOf(route)} has no example request: add one to EXAMPLES`);
      for (const caller of callers) {
        const { path, body } = await example.request(house);
        const res = await fetch(`${house.base}${path}`, {
          method: route.method.toUpperCase(),
          headers: { ...caller.headers(), ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
          signal: AbortSignal.timeout(5_000),
        });
        const expected = expectedOf(route.access, caller, example.target);
        const actual = await outcomeOf(res, route.access);
        cells++;
        if (actual !== expected) mismatches.push(`${keyOf(route)} by ${caller.name}: expected ${expected}, got ${actual}`);
      }
    }

    expect(mismatches).toEqual([]);
    expect(cells).toBe(routeTableOf(house.app).length * 9);
  });

  it('refuses a token without devices:read the device list and the event stream', async () => {
    const { secret } = await createToken(house.base, [{ scope: 'devices:control' }, { scope: 'metrics' }]);

    const list = await fetch(`${house.base}/devices`, { headers: bearer(secret) });
    const events = await fetch(`${house.base}/events`, { headers: bearer(secret) });

    expect([list.status, events.status]).toEqual([403, 403]);
    expect(await list.json()).toMatchObject({ code: 'SCOPE_MISSING', error: expect.stringContaining('devices:read') });
    expect(await events.json()).toMatchObject({ code: 'SCOPE_MISSING', error: expect.stringContaining('devices:read') });
  });

  it('has a token row for every scope the service knows', () => {
    const single = Object.values(LIMITED).filter((grants) => grants.length === 1 && Object.keys(grants[0]!).length === 1);

    expect(single.map((grants) => grants[0]!.scope).sort()).toEqual([...DEVICE_SCOPES].sort());
  });
});
