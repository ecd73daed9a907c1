import type { Grant, Scope } from '@homeops/common';
import { cloudDevice, FakeDeviceCloud, garageDoorOpener, hub, rollerShutter, smartBulb, thermostat } from '../fakes/fake-device-cloud.js';
import { serveTestApp, type ServedApp } from '../hostile/served-app.js';
import type { TestAppOptions } from '../support/test-app.js';

export const API_KEY = 'access-test-key-0123456789-abcdefghij';

/** One device of each family the command routes reach. */
export const PLUG = 'plug-1';
export const GARAGE = 'garage-1';
export const COVER = 'cover-1';
export const BULB = 'bulb-1';
export const HUB = 'hub-1';
export const THERMOSTAT = 'thermostat-1';

/** A house with one device of each family: an energy plug, a garage door opener, a cover, a bulb, a hub and a thermostat. */
export function houseCloud(): FakeDeviceCloud {
  return new FakeDeviceCloud([
    cloudDevice({ uuid: PLUG, name: 'Kitchen plug', capabilities: ['switch', 'energy'] }),
    garageDoorOpener({ uuid: GARAGE }),
    rollerShutter({ uuid: COVER }),
    smartBulb({ uuid: BULB }),
    hub({ uuid: HUB }),
    thermostat({ uuid: THERMOSTAT }),
  ]);
}

/** The app with API_KEY set over the house, served on a free port; room for every request a test sends. */
export async function serveHouse(options: TestAppOptions = {}): Promise<ServedApp & { base: string }> {
  const served = await serveTestApp({
    cloud: houseCloud(),
    apiKey: API_KEY,
    authFailuresPerMinute: 100_000,
    ...options,
    // The matrix syncs once per caller in a row: the minimum gap between syncs has its own test (sync.test.ts).
    service: { maxMessagesPerMinute: 10_000, maxMessagesPerHour: 100_000, syncMinGapSeconds: 0, ...options.service },
  });
  return { ...served, base: `http://127.0.0.1:${served.port}` };
}

export const withKey = { 'X-API-Key': API_KEY };
export const bearer = (secret: string) => ({ Authorization: `Bearer ${secret}` });

/** A token made with the API key through POST /tokens. */
export async function createToken(
  base: string,
  scopes: Array<Scope | Grant>,
  extra: { label?: string; expiresAt?: string } = {},
): Promise<{ id: string; secret: string }> {
  const res = await fetch(`${base}/tokens`, {
    method: 'POST',
    headers: { ...withKey, 'Content-Type': 'application/json' },
    body: JSON.stringify({ label: extra.label ?? 'test', scopes, ...(extra.expiresAt ? { expiresAt: extra.expiresAt } : {}) }),
  });
  if (res.status !== 201) throw new Error(`POST /tokens answered ${res.status}: ${await res.text()}`);
  const body = (await res.json()) as { token: { id: string }; secret: string };
  return { id: body.token.id, secret: body.secret };
}
