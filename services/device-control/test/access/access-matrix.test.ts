import {
  accessMatrixMismatches,
  issueMatrixCallers,
  matrixRoutesOf,
  undeclaredRoutes,
  type AccessMatrix,
  type MatrixCallers,
  type MatrixRoute,
  type RouteExpectation,
} from '@homeops/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEVICE_SCOPES } from '../../src/app.js';
import { cloudDevice, FakeDeviceCloud, garageDoorOpener, hub, rollerShutter, smartBulb, thermostat } from '../fakes/fake-device-cloud.js';
import type { ServedApp } from '../hostile/served-app.js';
import { bearer, createToken, serveHouse, withKey } from './access-fixture.js';

// The seam between features and tokens: every route of the live /openapi.json × a token of every scope × a device of
// the caller's own and someone else's. Owners are households' shares of the devices: a token limited to `mine` holds
// devices:control for my devices only. A route added without declaring whose resource it reaches fails the first test.

type Owner = 'mine' | 'theirs';

/** One device of each family per owner. */
const DEVICES: Record<Owner, { plug: string; garage: string; cover: string; bulb: string; hub: string; thermostat: string }> = {
  mine: { plug: 'plug-mine', garage: 'garage-mine', cover: 'cover-mine', bulb: 'bulb-mine', hub: 'hub-mine', thermostat: 'thermostat-mine' },
  theirs: { plug: 'plug-theirs', garage: 'garage-theirs', cover: 'cover-theirs', bulb: 'bulb-theirs', hub: 'hub-theirs', thermostat: 'thermostat-theirs' },
};

function twoHouseholds(): FakeDeviceCloud {
  return new FakeDeviceCloud(
    Object.values(DEVICES).flatMap((d) => [
      cloudDevice({ uuid: d.plug, name: `Plug ${d.plug}`, capabilities: ['switch', 'energy'] }),
      garageDoorOpener({ uuid: d.garage }),
      rollerShutter({ uuid: d.cover }),
      smartBulb({ uuid: d.bulb }),
      hub({ uuid: d.hub }),
      thermostat({ uuid: d.thermostat }),
    ]),
  );
}

/** The cloud calls that change a device. */
const COMMANDS = new Set(['setChannel', 'setGarageDoor', 'moveCover', 'setLight', 'setValve', 'setThermostat']);

const WATCH = { condition: { kind: 'offline', device: DEVICES.mine.plug, minutes: 5 }, notify: { recipient: 'family' } };

function expectationsFor(base: string): Record<string, RouteExpectation<Owner>> {
  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${base}${path}`, { method: 'PUT', headers: { ...withKey, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    if (res.status !== 200) throw new Error(`PUT ${path} was refused: ${res.status} ${await res.text()}`);
  };
  const spareToken = async () => (await createToken(base, ['metrics'], { label: 'spare' })).id;
  const spareWatch = async () => {
    const name = `spare-${Math.random().toString(36).slice(2, 8)}`;
    await post(`/watches/${name}`, WATCH);
    return name;
  };
  const unowned = (target: string, body?: unknown): RouteExpectation<Owner> => ({
    ownership: 'unowned',
    request: () => Promise.resolve(body === undefined ? { target } : { target, body }),
  });
  // A device's route: the owner's device of the family in the path.
  const device = (path: (d: (typeof DEVICES)[Owner]) => string, body?: unknown): RouteExpectation<Owner> => ({
    ownership: 'owned',
    request: (owner) => Promise.resolve({ target: path(DEVICES[owner]), ...(body === undefined ? {} : { body }) }),
  });
  return {
    'GET /health': unowned('/health'),
    'GET /auth/me': unowned('/auth/me'),
    'GET /tokens': unowned('/tokens'),
    'POST /tokens': unowned('/tokens', { label: 'from the matrix', scopes: ['metrics'] }),
    'PATCH /tokens/{id}': { ownership: 'unowned', request: async () => ({ target: `/tokens/${await spareToken()}`, body: { label: 'renamed' } }) },
    'POST /tokens/{id}/rotate': { ownership: 'unowned', request: async () => ({ target: `/tokens/${await spareToken()}/rotate` }) },
    'DELETE /tokens/{id}': { ownership: 'unowned', request: async () => ({ target: `/tokens/${await spareToken()}` }) },
    'POST /cloud/login': unowned('/cloud/login', { mfaCode: '000000' }),
    'GET /events': unowned('/events'),
    'GET /watches': unowned('/watches'),
    'PUT /watches/{name}': unowned('/watches/plug-offline', WATCH),
    'DELETE /watches/{name}': { ownership: 'unowned', request: async () => ({ target: `/watches/${await spareWatch()}` }) },
    // Every device is readable with devices:read (it takes no limit); the list and sync cover all devices.
    'GET /devices': unowned('/devices'),
    'POST /devices/sync': unowned('/devices/sync'),
    'GET /devices/{uuid}': device((d) => `/devices/${d.plug}`),
    'GET /devices/{uuid}/garage-door': device((d) => `/devices/${d.garage}/garage-door`),
    'GET /devices/{uuid}/cover': device((d) => `/devices/${d.cover}/cover`),
    'GET /devices/{uuid}/light': device((d) => `/devices/${d.bulb}/light`),
    'GET /devices/{uuid}/energy': device((d) => `/devices/${d.plug}/energy`),
    'GET /devices/{uuid}/energy/daily': device((d) => `/devices/${d.plug}/energy/daily`),
    'GET /devices/{uuid}/hub': device((d) => `/devices/${d.hub}/hub`),
    'GET /devices/{uuid}/thermostat': device((d) => `/devices/${d.thermostat}/thermostat`),
    'POST /devices/{uuid}/toggle': device((d) => `/devices/${d.plug}/toggle`, { channel: 0 }),
    'PUT /devices/{uuid}/channels/{channel}': device((d) => `/devices/${d.bulb}/channels/0`, { on: true }),
    'POST /devices/{uuid}/garage-door/{channel}/open': device((d) => `/devices/${d.garage}/garage-door/0/open`),
    'POST /devices/{uuid}/garage-door/{channel}/close': device((d) => `/devices/${d.garage}/garage-door/0/close`),
    'POST /devices/{uuid}/cover/{channel}/open': device((d) => `/devices/${d.cover}/cover/0/open`),
    'POST /devices/{uuid}/cover/{channel}/close': device((d) => `/devices/${d.cover}/cover/0/close`),
    'POST /devices/{uuid}/cover/{channel}/stop': device((d) => `/devices/${d.cover}/cover/0/stop`),
    'PUT /devices/{uuid}/cover/{channel}/position': device((d) => `/devices/${d.cover}/cover/0/position`, { position: 40 }),
    'PUT /devices/{uuid}/light/{channel}': device((d) => `/devices/${d.bulb}/light/0`, { brightness: 30 }),
    'PUT /devices/{uuid}/hub/{id}': device((d) => `/devices/${d.hub}/hub/valve-1`, { on: false }),
    'PUT /devices/{uuid}/thermostat/{channel}': device((d) => `/devices/${d.thermostat}/thermostat/0`, { targetTemperature: 20 }),
  };
}

function matrixOf(house: ServedApp & { base: string }): AccessMatrix<Owner> {
  const base = house.base;
  const expectations = expectationsFor(base);
  // The fake needs the MFA code again before each login, so an admin's login answers 200, not 409 CLOUD_LOGIN_NOT_NEEDED.
  const login = expectations['POST /cloud/login']!;
  expectations['POST /cloud/login'] = {
    ...login,
    request: () => {
      house.cloud.setSession('needs-mfa');
      return Promise.resolve({ target: '/cloud/login', body: { mfaCode: house.cloud.acceptedMfaCode } });
    },
  };
  return {
    owners: ['mine', 'theirs'],
    scopes: DEVICE_SCOPES,
    limited: (scope, owner) => (scope === 'devices:control' ? { scope, devices: Object.values(DEVICES[owner]) } : undefined),
    issue: async (grants) => (await createToken(base, grants, { label: 'matrix' })).secret,
    send: async (method, request, secret) => {
      const res = await fetch(`${base}${request.target}`, {
        method,
        headers: { ...(secret === undefined ? {} : bearer(secret)), ...(request.body === undefined ? {} : { 'Content-Type': 'application/json' }) },
        ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
        signal: AbortSignal.timeout(5_000),
      });
      if (res.headers.get('content-type')?.startsWith('text/event-stream')) {
        await res.body?.cancel();
        return { status: res.status, body: '' };
      }
      return { status: res.status, body: await res.text() };
    },
    stateOf: (owner) => {
      const uuids: unknown[] = Object.values(DEVICES[owner]);
      return Promise.resolve(house.cloud.calls.filter((c) => COMMANDS.has(c.method) && uuids.includes(c.args[0])).map((c) => c.method));
    },
    // No route lists per owner: every device is readable by devices:read.
    shows: () => false,
    expectations,
  };
}

describe('the access matrix of device-control, from its live /openapi.json', () => {
  let house: ServedApp & { base: string };
  let matrix: AccessMatrix<Owner>;
  let callers: MatrixCallers;
  let routes: MatrixRoute[];

  beforeAll(async () => {
    house = await serveHouse({ cloud: twoHouseholds() });
    matrix = matrixOf(house);
    callers = await issueMatrixCallers(matrix);
    routes = matrixRoutesOf((await (await fetch(`${house.base}/openapi.json`)).json()) as Parameters<typeof matrixRoutesOf>[0]);
  });
  afterAll(async () => {
    await house?.stop();
  });

  it('declares the ownership of every documented route, and of no route the document lacks', () => {
    expect(routes.length).toBeGreaterThan(25);
    expect(undeclaredRoutes(routes, matrix.expectations)).toEqual({ missing: [], stale: [] });
  });

  it(
    'answers every route × scope × my device and theirs as its access and ownership say; no refused call reaches their devices',
    { timeout: 60_000 },
    async () => {
      const wrong: string[] = [];

      for (const route of routes) wrong.push(...(await accessMatrixMismatches(matrix, callers, route)));

      expect(wrong).toEqual([]);
    },
  );

  it('has a caller for every scope the service knows, and a limited one for devices:control', () => {
    expect([...callers.scoped.keys()].sort()).toEqual([...DEVICE_SCOPES].sort());
    expect([...callers.limited.keys()]).toEqual(['devices:control']);
  });
});
