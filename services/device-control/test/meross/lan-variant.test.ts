import { AppError, createLogger, systemClock } from '@homeops/common';
import { afterEach, describe, expect, it } from 'vitest';
import { LanCallFailed, type CloudEvent } from '../../src/domain/device-cloud.js';
import { newEntry, type DeviceEntry } from '../../src/adapters/meross/meross-device-entry.js';
import { MerossLanHttp, type LanCallRecord } from '../../src/adapters/meross/meross-lan-http.js';
import { LanLinks } from '../../src/adapters/meross/meross-lan-links.js';
import type { MerossDeviceDefinition } from '../../src/adapters/meross/meross-library.js';
import { MerossMessenger, type DeviceRequest } from '../../src/adapters/meross/meross-messenger.js';
import { SecretRedactor } from '../../src/adapters/meross/meross-secrets.js';
import { EmulatedDevice } from '../emulator/emulated-device.js';
import { EmulatorLan } from '../emulator/emulator-lan.js';

// The messenger's choice of plain or encrypted LAN messages, against the emulator's LAN side in this process: every
// device reports firmware encrypt 1; only the one that declares Appliance.Encrypt.ECDHE reads encrypted messages.
const KEY = 'a1b2c3d4e5f60718293a4b5c6d7e8f90';
const PLAIN = 'plain000000000000000000000000001';
const SEALED = 'sealed00000000000000000000000002';
const TOGGLE_ON: DeviceRequest = { method: 'SET', namespace: 'Appliance.Control.ToggleX', payload: { togglex: { channel: 0, onoff: 1 } } };
const TOGGLE_OFF: DeviceRequest = { method: 'SET', namespace: 'Appliance.Control.ToggleX', payload: { togglex: { channel: 0, onoff: 0 } } };

let lan: EmulatorLan | undefined;
let http: MerossLanHttp | undefined;
afterEach(async () => {
  http?.close();
  await lan?.close();
  lan = http = undefined;
});

/** The two devices on the emulated LAN (bound to `deviceKey`), and a messenger that signs with KEY. */
async function start(deviceKey = KEY) {
  const devices = [
    new EmulatedDevice({ uuid: PLAIN, name: 'Plug', type: 'mss210' }),
    new EmulatedDevice({ uuid: SEALED, name: 'Kettle', type: 'mss210', encryption: true }),
  ];
  lan = await EmulatorLan.start(devices, () => ({ key: deviceKey, userId: '1', brokerHost: '127.0.0.1', cloudConnected: false, push: () => undefined }));
  const pinned = new Map(devices.map((d) => [d.uuid, `${d.lanAddress!}:${lan!.port}`]));
  const links = new LanLinks(true, pinned, systemClock);
  const calls: LanCallRecord[] = [];
  const sent: string[] = [];
  http = new MerossLanHttp(1_000, systemClock, (call) => calls.push(call));
  const messenger = new MerossMessenger({
    links,
    http,
    key: () => KEY,
    lanPort: lan.port,
    commandTimeoutMs: 1_000,
    clock: systemClock,
    redactor: new SecretRedactor('password', () => ({ token: null, key: KEY, userId: '1' })),
    log: createLogger({ service: 'test', level: 'silent' }),
    emit: (event: CloudEvent) => {
      if (event.type === 'sent') sent.push(event.via);
    },
    cloudReady: () => false,
    assertCloudRoute: () => {
      throw new AppError('CLOUD_UNAVAILABLE');
    },
    onLinkChange: () => undefined,
    onLearned: () => undefined,
  });
  const entryOf = (device: EmulatedDevice, encrypted: boolean): DeviceEntry => {
    const entry = newEntry({ uuid: device.uuid, onlineStatus: 2 } as MerossDeviceDefinition, null);
    entry.mac = device.macAddress;
    entry.encrypted = encrypted;
    return entry;
  };
  const outcomes = () => calls.map((c) => c.outcome);
  const received = (uuid: string) => lan!.requestsOf(uuid).map((r) => [r.namespace, r.encrypted ? 'encrypted' : 'plain']);
  return { devices: new Map(devices.map((d) => [d.uuid, d])), links, messenger, entryOf, outcomes, received, sent };
}

describe('MerossMessenger: the plain or encrypted LAN variant', () => {
  it('sends plain to a device without the ECDHE ability and encrypted to one with it, each read at the first try', async () => {
    const { devices, messenger, entryOf, outcomes, received } = await start();
    const plain = entryOf(devices.get(PLAIN)!, false);
    const sealed = entryOf(devices.get(SEALED)!, true);

    await messenger.send(plain, 'switching', TOGGLE_ON);
    await messenger.send(sealed, 'switching', TOGGLE_ON);

    expect(outcomes()).toEqual(['ok', 'ok']);
    expect(received(PLAIN)).toEqual([['Appliance.Control.ToggleX', 'plain']]);
    expect(received(SEALED)).toEqual([['Appliance.Control.ToggleX', 'encrypted']]);
    expect([devices.get(PLAIN)!.isOn(0), devices.get(SEALED)!.isOn(0)]).toEqual([true, true]);
  });

  it('takes the plain variant once an encrypted message gets HTTP 400, and keeps it for the device', async () => {
    const { devices, messenger, entryOf, outcomes, received, sent } = await start();
    // An older run took `encrypt: 1` for the ECDHE ability and kept the flag without the abilities.
    const plain = entryOf(devices.get(PLAIN)!, true);

    await messenger.send(plain, 'switching', TOGGLE_ON);
    await messenger.send(plain, 'switching', TOGGLE_OFF);

    expect(outcomes()).toEqual(['http', 'ok', 'ok']);
    expect(received(PLAIN)).toEqual([
      ['Appliance.Control.ToggleX', 'plain'],
      ['Appliance.Control.ToggleX', 'plain'],
    ]);
    expect(messenger.variantOf(plain)).toBe('plain');
    expect(sent).toEqual(['lan', 'lan', 'lan']);
    expect(devices.get(PLAIN)!.isOn(0)).toBe(false);
  });

  it('takes the encrypted variant once a plain message gets the connection reset, and keeps it for the device', async () => {
    const { devices, links, messenger, entryOf, outcomes, received } = await start();
    // Its abilities not read yet: nothing says it wants encryption.
    const sealed = entryOf(devices.get(SEALED)!, false);

    await messenger.send(sealed, 'switching', TOGGLE_ON);
    await messenger.send(sealed, 'switching', TOGGLE_OFF);

    expect(outcomes()).toEqual(['reset', 'ok', 'ok']);
    expect(received(SEALED)).toEqual([
      ['Appliance.Control.ToggleX', 'plain'],
      ['Appliance.Control.ToggleX', 'encrypted'],
      ['Appliance.Control.ToggleX', 'encrypted'],
    ]);
    expect(messenger.variantOf(sealed)).toBe('encrypted');
    expect(links.state(SEALED).kind).toBe('answering');
    expect(devices.get(SEALED)!.isOn(0)).toBe(false);
  });

  it("fails with the device's 5001 when it is bound to another key, found in the variant it reads", async () => {
    const { devices, links, messenger, entryOf, outcomes } = await start('another-account-key-0123456789ab');
    const plain = entryOf(devices.get(PLAIN)!, true);

    const failure = await messenger.send(plain, 'switching', TOGGLE_ON).catch((e: unknown) => e);

    expect(failure).toBeInstanceOf(LanCallFailed);
    expect(failure).toMatchObject({ code: 'CLOUD_ERROR', message: expect.stringContaining('ERROR 5001') });
    expect((failure as AppError).message).not.toMatch(/did not answer/);
    expect(outcomes()).toEqual(['http', 'refused-key']);
    expect(messenger.variantOf(plain)).toBe('plain');
    expect(links.state(PLAIN)).toMatchObject({ kind: 'refused', refusal: 'key' });
    expect(devices.get(PLAIN)!.isOn(0)).toBe(false);
  });

  it('keeps what its abilities say and reports the first failure when the device reads neither variant', async () => {
    const { devices, links, messenger, entryOf, outcomes } = await start('another-account-key-0123456789ab');
    // Encrypted with another key than the device's own: garbage to it, as a plain message is.
    const sealed = entryOf(devices.get(SEALED)!, true);

    const failure = await messenger.send(sealed, 'switching', TOGGLE_ON).catch((e: unknown) => e);

    expect(failure).toMatchObject({ code: 'CLOUD_TIMEOUT', message: expect.stringContaining('did not answer over the LAN (ECONNRESET)') });
    expect(outcomes()).toEqual(['reset', 'reset']);
    expect(messenger.variantOf(sealed)).toBe('encrypted');
    expect(links.state(SEALED).kind).toBe('failing');
  });
});
