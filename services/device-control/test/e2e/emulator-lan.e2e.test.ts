import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { eventually } from '@homeops/test-kit';
import { connectAsync, type MqttClient } from 'mqtt';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SIGNING_SECRET } from '../emulator/emulator-api.js';
import { BLINDS, BULB, DOOR, familyDevices, HUB, PLUG, SEALED, VALVE } from '../emulator/family-devices.js';
import { createAccount, MerossEmulator, type EmulatedAccount, type EmulatedDeviceSpec } from '../emulator/meross-emulator.js';
import { createTestPki, type TestPki } from '../emulator/pki.js';

// The emulator's LAN side on its own, driven by a hand-written LAN client (POST /config, as MerossIot and meross_lan
// send it) and a plain MQTT client for the cloud side: no service, no meross-cloud.
const OLD_PLUG = 'oldplug0000000000000000000000003';
const DEVICES: EmulatedDeviceSpec[] = [
  ...familyDevices(),
  { uuid: OLD_PLUG, name: 'Old plug', type: 'mss110', protocol: 'toggle' },
  { uuid: SEALED, name: 'New plug', type: 'mss110', firmware: '7.3.37', encryption: true },
];

interface Message {
  header: { messageId: string; namespace: string; method: string; from: string; timestamp: number; sign: string };
  payload: Record<string, unknown>;
}

const md5 = (text: string) => createHash('md5').update(text).digest('hex');
const IV = Buffer.from('0000000000000000', 'utf8');

/** A request as the apps send it, signed with `key`. */
function request(method: string, namespace: string, payload: unknown, key: string): Message {
  const messageId = randomBytes(16).toString('hex');
  const timestamp = Math.floor(Date.now() / 1000);
  return {
    header: { messageId, namespace, method, from: '/app/lan-test/subscribe', timestamp, sign: md5(`${messageId}${key}${timestamp}`) },
    payload: payload as never,
  };
}

/** meross_lan's key for the encrypted variant (protocol/message.py), computed here apart from the emulator's own. */
function sealKey(uuid: string, key: string, mac: string): Buffer {
  return Buffer.from(md5(`${uuid.slice(3, 22)}${key.slice(1, 9)}${mac}${key.slice(10, 28)}`), 'utf8');
}

function seal(text: string, key: Buffer): string {
  const plain = Buffer.from(text, 'utf8');
  const cipher = createCipheriv('aes-256-cbc', key, IV).setAutoPadding(false);
  return Buffer.concat([cipher.update(Buffer.concat([plain, Buffer.alloc(16 - (plain.length % 16))])), cipher.final()]).toString('base64');
}

function unseal(body: string, key: Buffer): string {
  const decipher = createDecipheriv('aes-256-cbc', key, IV).setAutoPadding(false);
  return Buffer.concat([decipher.update(Buffer.from(body, 'base64')), decipher.final()])
    .toString('utf8')
    .replace(/\0+$/, '');
}

describe("the emulator's LAN side", { timeout: 30_000 }, () => {
  let pki: TestPki;
  let account: EmulatedAccount;
  let emulator: MerossEmulator;
  beforeAll(() => {
    pki = createTestPki();
  });
  afterAll(() => pki.remove());
  beforeEach(async () => {
    account = createAccount();
    emulator = await MerossEmulator.start({ pki, account, devices: DEVICES });
  });
  afterEach(async () => {
    await emulator.stop();
  });

  /** POSTs a body to the device's /config at its current address; `timeoutMs` bounds a device that hangs. */
  async function post(uuid: string, body: string, timeoutMs = 5_000): Promise<{ status: number; text: string }> {
    const res = await fetch(`http://${emulator.lanHost(uuid)}/config`, { method: 'POST', body, signal: AbortSignal.timeout(timeoutMs) });
    return { status: res.status, text: await res.text() };
  }

  /** One signed request over the LAN, encrypted with `sealWith` when given; the answer parsed. */
  async function lan(uuid: string, method: string, namespace: string, payload: unknown, options: { key?: string; sealWith?: Buffer } = {}): Promise<Message> {
    const sent = request(method, namespace, payload, options.key ?? account.key);
    const body = JSON.stringify(sent);
    const { status, text } = await post(uuid, options.sealWith ? seal(body, options.sealWith) : body);
    expect(status).toBe(200);
    const answer = JSON.parse(options.sealWith ? unseal(text, options.sealWith) : text) as Message;
    expect(answer.header).toMatchObject({ messageId: sent.header.messageId, namespace, from: `/appliance/${uuid}/publish` });
    return answer;
  }

  const connectionError = async (call: Promise<unknown>) => {
    const err = (await call.then(
      () => null,
      (e: unknown) => e,
    )) as { name?: string; cause?: { code?: string } } | null;
    return err?.name === 'TimeoutError' ? 'hang' : (err?.cause?.code ?? 'answered');
  };

  it('puts every device on its own 127.0.x.y, reported as innerIp, all on one port', async () => {
    const addresses = DEVICES.map((d) => emulator.device(d.uuid).lanAddress);

    const all = await lan(PLUG, 'GET', 'Appliance.System.All', { all: {} });

    expect(new Set(addresses).size).toBe(DEVICES.length);
    for (const address of addresses) expect(address).toMatch(/^127\.0\.(?!0\.)\d{1,3}\.\d{1,3}$/);
    expect(emulator.lanHost(PLUG)).toBe(`${emulator.device(PLUG).lanAddress}:${emulator.lanPort}`);
    expect(all.header.method).toBe('GETACK');
    expect(all.header.sign).toBe(md5(`${all.header.messageId}${account.key}${all.header.timestamp}`));
    expect((all.payload.all as { system: { firmware: Record<string, unknown> } }).system.firmware).toMatchObject({
      innerIp: emulator.device(PLUG).lanAddress,
      server: emulator.host,
    });
  });

  it('answers a request signed with another key with ERROR 5001 and changes nothing', async () => {
    const answer = await lan(PLUG, 'SET', 'Appliance.Control.ToggleX', { togglex: { channel: 0, onoff: 1 } }, { key: 'not-the-account-key' });

    expect(answer.header.method).toBe('ERROR');
    expect(answer.payload).toEqual({ error: { code: 5001, detail: 'sign error' } });
    expect(emulator.device(PLUG).isOn(0)).toBe(false);
  });

  it('switches plugs over the LAN (ToggleX and the old Toggle) and reads their state and energy', async () => {
    expect((await lan(PLUG, 'SET', 'Appliance.Control.ToggleX', { togglex: { channel: 0, onoff: 1 } })).header.method).toBe('SETACK');
    expect((await lan(OLD_PLUG, 'SET', 'Appliance.Control.Toggle', { toggle: { onoff: 1 } })).header.method).toBe('SETACK');

    expect((await lan(PLUG, 'GET', 'Appliance.Control.ToggleX', {})).payload).toEqual({ togglex: [expect.objectContaining({ channel: 0, onoff: 1 })] });
    expect((await lan(OLD_PLUG, 'GET', 'Appliance.Control.Toggle', {})).payload).toEqual({ toggle: expect.objectContaining({ onoff: 1 }) });
    expect((await lan(PLUG, 'GET', 'Appliance.Control.Electricity', {})).payload).toEqual({
      electricity: { channel: 0, power: 42_500, voltage: 2305, current: 184 },
    });
    expect((await lan(PLUG, 'GET', 'Appliance.Control.ConsumptionX', {})).payload.consumptionx).toHaveLength(3);
    expect([emulator.device(PLUG).isOn(0), emulator.device(OLD_PLUG).isOn(0)]).toEqual([true, true]);
  });

  it('opens the garage door, moves the cover and sets the light over the LAN, as over MQTT', async () => {
    emulator.device(DOOR).doorTravelMs = 0;
    emulator.device(BLINDS).coverTravelMs = 0;

    const door = await lan(DOOR, 'SET', 'Appliance.GarageDoor.State', { state: { channel: 0, open: 1, uuid: DOOR } });
    const cover = await lan(BLINDS, 'SET', 'Appliance.RollerShutter.Position', { position: { channel: 0, position: 40 } });
    const light = await lan(BULB, 'SET', 'Appliance.Control.Light', { light: { channel: 0, luminance: 80, capacity: 4 } });

    expect(door.payload).toEqual({ state: expect.objectContaining({ channel: 0, open: 0, execute: 1 }) });
    expect([cover.header.method, light.header.method]).toEqual(['SETACK', 'SETACK']);
    await eventually(() => emulator.device(DOOR).isOpen(0) && emulator.device(BLINDS).coverNow() === 40, 'the door and the cover arrive');
    expect((await lan(DOOR, 'GET', 'Appliance.GarageDoor.State', {})).payload).toEqual({ state: [expect.objectContaining({ channel: 0, open: 1 })] });
    expect((await lan(BLINDS, 'GET', 'Appliance.RollerShutter.Position', {})).payload).toEqual({ position: [{ channel: 0, position: 40 }] });
    expect((await lan(BLINDS, 'GET', 'Appliance.RollerShutter.State', {})).payload).toEqual({ state: [expect.objectContaining({ channel: 0, state: 0 })] });
    expect((await lan(BULB, 'GET', 'Appliance.Control.Light', {})).payload).toEqual({ light: expect.objectContaining({ luminance: 80, capacity: 5 }) });
    expect(emulator.device(BULB).isOn(0)).toBe(true);
  });

  it("reads a hub's valves, sensors and batteries and sets a valve over the LAN", async () => {
    const valves = await lan(HUB, 'GET', 'Appliance.Hub.Mts100.All', { all: [] });
    const sensors = await lan(HUB, 'GET', 'Appliance.Hub.Sensor.All', { all: [] });
    const batteries = await lan(HUB, 'GET', 'Appliance.Hub.Battery', { battery: [] });
    await lan(HUB, 'SET', 'Appliance.Hub.ToggleX', { togglex: [{ id: VALVE, onoff: 0 }] });
    await lan(HUB, 'SET', 'Appliance.Hub.Mts100.Temperature', { temperature: [{ id: VALVE, custom: 185 }] });
    await lan(HUB, 'SET', 'Appliance.Hub.Mts100.Mode', { mode: [{ id: VALVE, state: 3 }] });

    expect(valves.payload.all).toEqual([expect.objectContaining({ id: VALVE, togglex: { onoff: 1 }, mode: { state: 0 } })]);
    expect(sensors.payload.all).toEqual([expect.objectContaining({ id: '120027D2', humidity: { latest: 551 } })]);
    expect(batteries.payload.battery).toEqual([
      { id: VALVE, value: 90 },
      { id: '120027D2', value: 80 },
    ]);
    expect(emulator.device(HUB).hubDevices[0]).toMatchObject({ onoff: 0, custom: 185, mode: 3 });
  });

  it('answers several requests in one Appliance.Control.Multiple, up to its maxCmdNum, and only where declared', async () => {
    const inner = (method: string, namespace: string, payload: unknown) => ({
      header: { messageId: randomBytes(8).toString('hex'), method, namespace },
      payload,
    });
    const three = [
      inner('GET', 'Appliance.System.All', { all: {} }),
      inner('SET', 'Appliance.Control.ToggleX', { togglex: { channel: 0, onoff: 1 } }),
      inner('GET', 'Appliance.Control.Electricity', {}),
    ];

    const ability = await lan(PLUG, 'GET', 'Appliance.System.Ability', {});
    const answer = await lan(PLUG, 'SET', 'Appliance.Control.Multiple', { multiple: three });
    const six = await lan(PLUG, 'SET', 'Appliance.Control.Multiple', { multiple: [...three, ...three] });
    const undeclared = await lan(OLD_PLUG, 'SET', 'Appliance.Control.Multiple', { multiple: three });

    expect((ability.payload.ability as Record<string, unknown>)['Appliance.Control.Multiple']).toEqual({ maxCmdNum: 5 });
    expect(answer.header.method).toBe('SETACK');
    const answers = answer.payload.multiple as Message[];
    expect(answers.map((m) => [m.header.messageId, m.header.method, m.header.namespace])).toEqual(
      three.map((r) => [r.header.messageId, r.header.method === 'GET' ? 'GETACK' : 'SETACK', r.header.namespace]),
    );
    expect(answers[2]!.payload).toMatchObject({ electricity: { power: 42_500 } });
    expect(six.payload.multiple).toHaveLength(5);
    expect(undeclared.header.method).toBe('ERROR');
    expect(emulator.device(PLUG).isOn(0)).toBe(true);
  });

  it('serves the encrypted variant: an encrypted request is answered encrypted, the abilities in plain, anything else in plain resets', async () => {
    const key = sealKey(SEALED, account.key, emulator.device(SEALED).macAddress);

    const ability = await lan(SEALED, 'GET', 'Appliance.System.Ability', {});
    const all = await lan(SEALED, 'GET', 'Appliance.System.All', { all: {} }, { sealWith: key });
    const toggled = await lan(SEALED, 'SET', 'Appliance.Control.ToggleX', { togglex: { channel: 0, onoff: 1 } }, { sealWith: key });
    const plain = post(SEALED, JSON.stringify(request('GET', 'Appliance.System.All', { all: {} }, account.key)));
    const wrongKey = post(SEALED, seal(JSON.stringify(request('GET', 'Appliance.System.All', { all: {} }, account.key)), Buffer.alloc(32, 1)));

    expect(Object.keys(ability.payload.ability as object)).toEqual(expect.arrayContaining(['Appliance.Encrypt.ECDHE', 'Appliance.Encrypt.Suite']));
    const { system } = all.payload.all as { system: { hardware: { macAddress: string }; firmware: Record<string, unknown> } };
    expect(system.hardware.macAddress).toBe(emulator.device(SEALED).macAddress);
    expect(system.firmware).toMatchObject({ encrypt: 1, innerIp: emulator.device(SEALED).lanAddress });
    expect(toggled.header.method).toBe('SETACK');
    expect(emulator.device(SEALED).isOn(0)).toBe(true);
    expect(await connectionError(plain)).toBe('ECONNRESET');
    expect(await connectionError(wrongKey)).toBe('ECONNRESET');
    expect(
      emulator
        .lanRequests(undefined, undefined)
        .filter((r) => r.uuid === SEALED)
        .map((r) => [r.namespace, r.encrypted]),
    ).toEqual([
      ['Appliance.System.Ability', false],
      ['Appliance.System.All', true],
      ['Appliance.Control.ToggleX', true],
      ['Appliance.System.All', false],
    ]);
  });

  it('reports encrypt 1 on a device without ECDHE too, reads it only plain, and answers an encrypted body with HTTP 400', async () => {
    const key = sealKey(PLUG, account.key, emulator.device(PLUG).macAddress);

    const all = await lan(PLUG, 'GET', 'Appliance.System.All', { all: {} });
    const sealed = await post(PLUG, seal(JSON.stringify(request('SET', 'Appliance.Control.ToggleX', { togglex: { channel: 0, onoff: 1 } }, account.key)), key));

    expect((all.payload.all as { system: { firmware: Record<string, unknown> } }).system.firmware).toMatchObject({ encrypt: 1 });
    expect(emulator.device(PLUG).abilities()).not.toContain('Appliance.Encrypt.ECDHE');
    expect(sealed).toEqual({ status: 400, text: '' });
    expect(emulator.device(PLUG).isOn(0)).toBe(false);
    expect(emulator.lanRequests().map((r) => [r.namespace, r.encrypted])).toEqual([['Appliance.System.All', false]]);
  });

  it('takes a device off the LAN (refused, or hanging) and back, leaving the others answering', async () => {
    await emulator.setLanReachable(PLUG, false);
    const refused = await connectionError(lan(PLUG, 'GET', 'Appliance.System.All', {}));
    await emulator.setLanReachable(PLUG, 'hang');
    const hanging = await connectionError(post(PLUG, JSON.stringify(request('GET', 'Appliance.System.All', {}, account.key)), 300));
    const other = await lan(BULB, 'GET', 'Appliance.System.All', {});
    await emulator.setLanReachable(PLUG, true);
    const back = await lan(PLUG, 'GET', 'Appliance.System.All', {});

    expect([refused, hanging]).toEqual(['ECONNREFUSED', 'hang']);
    expect([other.header.method, back.header.method]).toEqual(['GETACK', 'GETACK']);
    expect(emulator.messagesOf(PLUG)).toEqual({ lan: 1, cloud: 0 });
  });

  it('moves a device to another address: the old one refuses, the new one answers and System.All reports it', async () => {
    const before = emulator.lanHost(PLUG);

    const address = await emulator.moveLan(PLUG);
    const stale = await connectionError(fetch(`http://${before}/config`, { method: 'POST', body: '{}' }));
    const all = await lan(PLUG, 'GET', 'Appliance.System.All', {});

    expect(address).not.toBe(before.split(':')[0]);
    expect(emulator.lanHost(PLUG)).toBe(`${address}:${emulator.lanPort}`);
    expect(stale).toBe('ECONNREFUSED');
    expect((all.payload.all as { system: { firmware: { innerIp: string } } }).system.firmware.innerIp).toBe(address);
  });

  describe('with the cloud side (an MQTT client on the emulated broker)', () => {
    let mqtt: MqttClient;
    const pushes: Message[] = [];
    const waiting = new Map<string, (m: Message) => void>();
    const topic = () => `/app/${account.userId}-lan-test/subscribe`;

    beforeEach(async () => {
      pushes.length = 0;
      mqtt = await connectAsync(`mqtts://${emulator.host}:2001`, {
        username: account.userId,
        password: md5(`${account.userId}${account.key}`),
        ca: readFileSync(pki.caFile),
        reconnectPeriod: 0,
      });
      mqtt.on('message', (_topic, raw) => {
        const message = JSON.parse(raw.toString()) as Message;
        if (message.header.method === 'PUSH') pushes.push(message);
        else waiting.get(message.header.messageId)?.(message);
      });
      await mqtt.subscribeAsync([topic(), `/app/${account.userId}/subscribe`]);
    });
    afterEach(async () => {
      await mqtt.endAsync(true);
    });

    /** A request through the cloud; resolves with the answer, or 'none' when none came within `timeoutMs`. */
    function cloud(uuid: string, method: string, namespace: string, payload: unknown, timeoutMs = 3_000): Promise<Message | 'none'> {
      const sent = request(method, namespace, payload, account.key);
      sent.header.from = topic();
      return new Promise((resolve) => {
        const timer = setTimeout(() => resolve('none'), timeoutMs);
        waiting.set(sent.header.messageId, (m) => {
          clearTimeout(timer);
          resolve(m);
        });
        mqtt.publish(`/appliance/${uuid}/subscribe`, JSON.stringify(sent));
      });
    }

    it('shares one state: what one transport changes the other reads, and a LAN command still pushes to the cloud', async () => {
      await lan(PLUG, 'SET', 'Appliance.Control.ToggleX', { togglex: { channel: 0, onoff: 1 } });
      const readByCloud = await cloud(PLUG, 'GET', 'Appliance.Control.ToggleX', {});
      await cloud(HUB, 'SET', 'Appliance.Hub.Mts100.Temperature', { temperature: [{ id: VALVE, custom: 200 }] });
      const readOverLan = await lan(HUB, 'GET', 'Appliance.Hub.Mts100.All', { all: [] });
      await lan(BULB, 'SET', 'Appliance.Control.Light', { light: { channel: 0, luminance: 30, capacity: 4 } });
      emulator.pressButton(PLUG, 0);

      expect(readByCloud).toMatchObject({ payload: { togglex: [expect.objectContaining({ onoff: 1 })] } });
      expect(readOverLan.payload.all).toEqual([expect.objectContaining({ temperature: expect.objectContaining({ custom: 200 }) })]);
      await eventually(() => pushes.length >= 3, 'the pushes');
      expect(pushes.map((p) => [p.header.from, p.header.namespace])).toEqual([
        [`/appliance/${BULB}/publish`, 'Appliance.Control.Light'],
        [`/appliance/${BULB}/publish`, 'Appliance.Control.ToggleX'],
        [`/appliance/${PLUG}/publish`, 'Appliance.Control.ToggleX'],
      ]);
      expect((await lan(PLUG, 'GET', 'Appliance.Control.ToggleX', {})).payload).toEqual({ togglex: [expect.objectContaining({ onoff: 0 })] });
      expect(emulator.messagesOf(PLUG)).toEqual({ lan: 2, cloud: 1 });
      expect(emulator.messagesOf(HUB)).toEqual({ lan: 1, cloud: 1 });
    });

    it("takes a device off the cloud alone: the cloud's request counts but gets no answer, no push arrives, the LAN answers", async () => {
      emulator.setCloudReachable(PLUG, false);
      const unanswered = cloud(PLUG, 'GET', 'Appliance.System.All', {});
      await eventually(() => emulator.messagesOf(PLUG).cloud === 1, 'the request to reach the device');
      emulator.pressButton(PLUG, 0);
      const all = await lan(PLUG, 'GET', 'Appliance.System.All', {});
      emulator.setCloudReachable(PLUG, true);
      const again = await cloud(PLUG, 'GET', 'Appliance.System.Online', {});
      // An answer to the first request would have come over the same connection before the answer to this one.
      const viaCloud = await Promise.race([unanswered, Promise.resolve('none' as const)]);

      expect(viaCloud).toBe('none');
      expect((all.payload.all as { system: { online: { status: number } } }).system.online.status).toBe(0);
      expect(again).toMatchObject({ payload: { online: { status: 1 } } });
      await eventually(() => pushes.length >= 2, 'the presence pushes');
      expect(pushes.map((p) => [p.header.namespace, p.payload])).toEqual([
        ['Appliance.System.Online', { online: { status: 2 } }],
        ['Appliance.System.Online', { online: { status: 1 } }],
      ]);
      expect(emulator.messagesOf(PLUG)).toEqual({ lan: 1, cloud: 2 });
    });
  });

  describe('the cloud locked out, then gone', () => {
    /** A sign-in as the Meross app signs it; the API's apiStatus, or the connection error. */
    function signIn(): Promise<number | string> {
      const params = Buffer.from(JSON.stringify({ email: account.email, password: md5(account.password) })).toString('base64');
      const [timestamp, nonce] = [String(Date.now()), randomBytes(8).toString('hex')];
      const body = new URLSearchParams({ params, timestamp, nonce, sign: md5(`${SIGNING_SECRET}${timestamp}${nonce}${params}`) }).toString();
      return new Promise((resolve) => {
        const req = httpsRequest(`${emulator.apiUrl}/v1/Auth/signIn`, { method: 'POST', ca: readFileSync(pki.caFile), agent: false }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve((JSON.parse(Buffer.concat(chunks).toString()) as { apiStatus: number }).apiStatus));
        });
        req.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? 'failed'));
        req.end(body);
      });
    }

    it('answers the lock-out code, then refuses connections, while the LAN keeps answering; back on the same address', async () => {
      const url = emulator.apiUrl;

      emulator.lockOut(1035);
      const locked = await signIn();
      await emulator.cloudDown();
      const down = await signIn();
      const viaLan = await lan(PLUG, 'SET', 'Appliance.Control.ToggleX', { togglex: { channel: 0, onoff: 1 } });
      const all = await lan(PLUG, 'GET', 'Appliance.System.All', {});
      await emulator.cloudUp();

      expect([locked, down]).toEqual([1035, 'ECONNREFUSED']);
      expect(viaLan.header.method).toBe('SETACK');
      expect((all.payload.all as { system: { online: { status: number } } }).system.online.status).toBe(0);
      expect(emulator.apiUrl).toBe(url);
      expect(await signIn()).toBe(0);
      expect(emulator.api.calls.signIn).toBe(2);
    });
  });
});
