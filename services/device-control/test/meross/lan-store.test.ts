import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '@homeops/common';
import { afterEach, describe, expect, it } from 'vitest';
import { deviceListFileOf } from '../../src/adapters/meross/meross-cloud.adapter.js';
import { DeviceStore, type StoredDevice } from '../../src/adapters/meross/meross-device-store.js';
import { parseConfig } from '../../src/config.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function folder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'lan-store-'));
  dirs.push(dir);
  return dir;
}

const plug: StoredDevice = {
  def: { uuid: 'plug0000000000000000000000000001', deviceType: 'mss310', devName: 'Desk lamp', onlineStatus: 1, domain: 'mqtt.example' },
  address: '192.168.1.23',
  abilities: { 'Appliance.Control.ToggleX': {} },
  mac: '48:e1:e9:00:00:01',
  encrypted: false,
};
const fail = (err: unknown) => {
  throw err;
};

describe('DeviceStore (the device list kept beside the token file)', () => {
  it('lives beside the token file, written 0600 in a 0700 folder and read back for the same account only', async () => {
    const file = deviceListFileOf(join(folder(), 'data', 'cloud-token.json'));
    const store = new DeviceStore(file, 'account-a', new ManualClock());

    await store.save(() => ({ key: 'account-key', devices: [plug] }), fail);

    expect(file.endsWith(join('data', 'meross-devices.json'))).toBe(true);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(file, '..')).mode & 0o777).toBe(0o700);
    expect(await store.load()).toEqual({ key: 'account-key', savedAt: '2026-01-01T00:00:00.000Z', devices: [plug] });
    expect(await new DeviceStore(file, 'account-b', new ManualClock()).load()).toBeNull();
  });

  it('leaves no temporary file behind and writes a burst of saves once, with the newest state', async () => {
    const dir = folder();
    const file = join(dir, 'meross-devices.json');
    const store = new DeviceStore(file, 'account-a', new ManualClock());
    let snapshots = 0;
    const devices: StoredDevice[] = [];

    const saves = [1, 2, 3].map((n) => {
      devices.push({ ...plug, def: { ...plug.def, uuid: `plug${n}` } });
      return store.save(() => {
        snapshots += 1;
        return { key: 'k', devices: [...devices] };
      }, fail);
    });
    await Promise.all(saves);
    await store.idle();

    expect(snapshots).toBeLessThanOrEqual(2);
    expect((await store.load())?.devices.map((d) => d.def.uuid)).toEqual(['plug1', 'plug2', 'plug3']);
    expect(readdirSync(dir)).toEqual(['meross-devices.json']);
  });

  it('reads a damaged or foreign file as no list, and keeps nothing without a token file', async () => {
    const file = join(folder(), 'meross-devices.json');
    writeFileSync(file, '{"version":1,"account":"account-a","key":');

    expect(await new DeviceStore(file, 'account-a', new ManualClock()).load()).toBeNull();
    await new DeviceStore(undefined, 'account-a', new ManualClock()).save(() => ({ key: 'k', devices: [plug] }), fail);
    expect(readFileSync(file, 'utf8')).toContain('"key":');
  });
});

describe('local control configuration', () => {
  it('is on by default, polls every 30 s, and reads pinned addresses as uuid=host[:port] pairs', () => {
    const config = parseConfig({ MEROSS_LAN_ADDRESSES: 'aaaa=192.168.1.23, bbbb=plug.lan:8080' });

    expect(config).toMatchObject({ MEROSS_LAN: 'on', MEROSS_LAN_POLL_SECONDS: 30, MEROSS_LAN_TIMEOUT_MS: 3_000, MEROSS_LAN_PORT: 80 });
    expect([...config.MEROSS_LAN_ADDRESSES]).toEqual([
      ['aaaa', '192.168.1.23'],
      ['bbbb', 'plug.lan:8080'],
    ]);
  });

  it('names each bad pair without echoing the address, and refuses a poll interval below 0.1 s', () => {
    const bad = () => parseConfig({ MEROSS_LAN_ADDRESSES: 'aaaa=10.0.0.9,http://10.0.0.7', MEROSS_LAN_POLL_SECONDS: '0.05', MEROSS_LAN: 'maybe' });

    expect(bad).toThrow(/MEROSS_LAN_ADDRESSES.*entry 2 must be uuid=host/s);
    expect(bad).toThrow(/MEROSS_LAN_POLL_SECONDS/);
    expect(bad).toThrow(/MEROSS_LAN\b/);
    expect(() => bad()).not.toThrow(/10\.0\.0\.7/);
  });
});
