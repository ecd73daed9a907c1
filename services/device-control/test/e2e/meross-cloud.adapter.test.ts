import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, statSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { adapterHostForSuite, type RemoteCloud } from '../emulator/adapter-process.js';
import { eventually, within } from '@homeops/test-kit';
import { createAccount, MerossEmulator, standardDevices, type EmulatedAccount } from '../emulator/meross-emulator.js';

const PLUG = 'plug0000000000000000000000000001';
const STRIP = 'strip000000000000000000000000002';
const OLD_PLUG = 'oldplug0000000000000000000000003';
const HUB = 'hub00000000000000000000000000004';

const md5 = (text: string) => createHash('md5').update(text).digest('hex');

describe('MerossCloud adapter: the real meross-cloud library against the emulated cloud', { timeout: 20_000 }, () => {
  let account: EmulatedAccount;
  let emulator: MerossEmulator;
  let dir: string;
  const suite = adapterHostForSuite();
  const adapters: RemoteCloud[] = [];
  const emulators: MerossEmulator[] = [];
  /** Every secret any test's session had: the output of the whole run must contain none of them. */
  const secrets: Record<string, string> = {};

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'meross-adapter-'));
    account = createAccount();
    emulator = await startEmulator();
  });

  afterEach(async () => {
    await Promise.all(adapters.splice(0).map((a) => a.stop()));
    const n = Object.keys(secrets).length;
    Object.assign(secrets, {
      [`password${n}`]: account.password,
      [`passwordMd5${n}`]: md5(account.password),
      [`key${n}`]: account.key,
      [`mqttPassword${n}`]: md5(`${account.userId}${account.key}`),
    });
    for (const e of emulators) e.api.issuedTokens.forEach((t, i) => (secrets[`token${n}.${e.host}.${i}`] = t));
    await Promise.all(emulators.splice(0).map((e) => e.stop()));
    rmSync(dir, { recursive: true, force: true });
  });

  async function startEmulator(): Promise<MerossEmulator> {
    const started = await MerossEmulator.start({ pki: suite.pki, account, devices: standardDevices() });
    emulators.push(started);
    return started;
  }

  async function startAdapter(overrides: { tooManyTokensWaitMs?: number; commandTimeoutMs?: number; manualClock?: boolean } = {}): Promise<RemoteCloud> {
    const adapter = await suite.host.create({
      email: account.email,
      password: account.password,
      apiUrl: emulator.apiUrl,
      tokenFile: join(dir, 'data', 'cloud-token.json'),
      requestTimeoutMs: 2_000,
      commandTimeoutMs: 1_000,
      loginBackoffMs: 300,
      retryBackoffMs: 300,
      maxBackoffMs: 2_000,
      tooManyTokensWaitMs: 60_000,
      brokerRecovery: { reconnectMs: 250 },
      ...overrides,
    });
    adapters.push(adapter);
    return adapter;
  }

  async function connected(adapter: RemoteCloud): Promise<void> {
    await adapter.start();
    await eventually(async () => (await adapter.status()).state === 'connected', 'the session to connect');
  }

  async function commandReady(adapter: RemoteCloud, uuid: string): Promise<void> {
    await eventually(async () => (await adapter.listDevices()).find((d) => d.uuid === uuid)?.commandReady, `${uuid} to be command-ready`);
  }

  describe('session', () => {
    it('logs in once, lists every device of the account and reports the session connected', async () => {
      const adapter = await startAdapter();

      await connected(adapter);
      const devices = await adapter.listDevices();

      expect(emulator.api.calls.signIn).toBe(1);
      expect(devices.map((d) => d.uuid).sort()).toEqual([HUB, OLD_PLUG, PLUG, STRIP].sort());
      const strip = devices.find((d) => d.uuid === STRIP);
      expect(strip).toMatchObject({ name: 'Power strip', type: 'mss425f', online: true, switchable: true, firmware: '6.1.8' });
      expect(strip?.channels).toEqual([
        { channel: 0, name: 'All' },
        { channel: 1, name: 'Monitor' },
        { channel: 2, name: 'Printer' },
        { channel: 3, name: 'Router' },
        { channel: 4, name: 'USB' },
      ]);
      expect(await adapter.status()).toMatchObject({ backend: 'meross', state: 'connected', retryAt: null });
      expect(adapter.events.some((e) => e.type === 'session' && e.status.state === 'connected')).toBe(true);
    });

    it('saves the token with mode 0600 and reuses it after a restart without signing in again', async () => {
      const first = await startAdapter();
      await connected(first);
      await first.stop();
      const tokenFile = join(dir, 'data', 'cloud-token.json');
      expect(statSync(tokenFile).mode & 0o777).toBe(0o600);
      expect(readFileSync(tokenFile, 'utf8')).not.toContain(account.password);

      const second = await startAdapter();
      await connected(second);

      expect(emulator.api.calls.signIn).toBe(1);
      expect(emulator.api.calls.devList).toBe(2);
      expect(await second.listDevices()).toHaveLength(4);
    });

    it('logs in exactly once more when the cloud rejects the token, and keeps the new token', async () => {
      const adapter = await startAdapter();
      await connected(adapter);
      emulator.api.revokeTokens();

      const devices = await adapter.listDevices();
      await adapter.listDevices();

      expect(devices).toHaveLength(4);
      expect(emulator.api.calls.rejectedToken).toBe(1);
      expect(emulator.api.calls.signIn).toBe(2);
      expect((await adapter.status()).state).toBe('connected');
    });

    it('logs in once at startup when the saved token was revoked meanwhile', async () => {
      const first = await startAdapter();
      await connected(first);
      await first.stop();
      emulator.api.revokeTokens();

      const second = await startAdapter();
      await connected(second);

      expect(emulator.api.calls.rejectedToken).toBe(1);
      expect(emulator.api.calls.signIn).toBe(2);
      expect(await second.listDevices()).toHaveLength(4);
    });

    it('starts while the API is down, answers CLOUD_UNAVAILABLE with Retry-After, and connects once it is back', async () => {
      emulator.api.mode = 'unavailable';
      const adapter = await startAdapter({ manualClock: true });

      await adapter.start();
      await eventually(async () => (await adapter.status()).state === 'backing-off', 'the session to back off');
      const failure = await adapter.failure(adapter.listDevices());
      const status = await adapter.status();
      const failedAt = await adapter.now();
      emulator.api.mode = 'up';
      const back = await adapter.advance(300);

      expect(failure.code).toBe('CLOUD_UNAVAILABLE');
      expect(failure.retryAfterSeconds).toBe(1);
      expect(status.lastError?.message).toContain('HTTP 503');
      expect(status.retryAt).toBe(new Date(failedAt + 300).toISOString());
      expect(back.state).toBe('connected');
      expect(await adapter.listDevices()).toHaveLength(4);
      expect(emulator.api.calls.signIn).toBe(1);
    });

    it('never reports an HTTP 503 device list as an empty account', async () => {
      const adapter = await startAdapter();
      await connected(adapter);
      emulator.api.mode = 'unavailable';

      const failure = await adapter.failure(adapter.listDevices());

      expect(failure.code).toBe('CLOUD_UNAVAILABLE');
      emulator.api.mode = 'up';
      expect(await adapter.listDevices()).toHaveLength(4);
    });

    it.each([
      ['no list at all', null],
      ['an entry without deviceType (meross-cloud would throw)', [{ uuid: 'x1', devName: 'x' }]],
    ])('rejects a device list with %s instead of reporting an empty or broken account', async (_name, data) => {
      const adapter = await startAdapter();
      await connected(adapter);
      emulator.api.devListData = data;

      const failure = await adapter.failure(adapter.listDevices());
      emulator.api.devListData = undefined;

      expect(failure.code).toBe('CLOUD_ERROR');
      expect(suite.host.alive).toBe(true);
      expect(await adapter.listDevices()).toHaveLength(4);
    });

    it('answers CLOUD_TIMEOUT when the API does not answer the device list in time', async () => {
      const adapter = await startAdapter();
      await connected(adapter);
      emulator.api.mode = 'hang';

      const failure = await adapter.failure(adapter.listDevices());

      expect(failure.code).toBe('CLOUD_TIMEOUT');
    });

    it('follows a 1030 region redirect and reuses the regional token after a restart', async () => {
      const region = await startEmulator();
      emulator.api.redirect = { domain: region.apiUrl, mqttDomain: region.host };
      const first = await startAdapter();
      await connected(first);
      await commandReady(first, PLUG);
      await first.setChannel(PLUG, 0, true);
      await first.stop();

      const second = await startAdapter();
      await connected(second);

      expect(region.device(PLUG).isOn(0)).toBe(true);
      expect(emulator.api.calls.signIn).toBe(1);
      expect(region.api.calls.signIn).toBe(1);
      expect(emulator.api.calls.devList).toBe(0);
      expect(region.api.calls.rejectedToken).toBe(0);
      expect(await second.listDevices()).toHaveLength(4);
    });

    it('survives a 1030 redirect without data (meross-cloud would throw) and backs off', async () => {
      emulator.api.redirect = 'without-data';
      const adapter = await startAdapter({ manualClock: true });

      await adapter.start();
      await eventually(async () => (await adapter.status()).state === 'backing-off', 'the session to back off');
      const status = await adapter.status();
      // 300 ms, then 600 ms: in one second of the clock, exactly three sign-ins, none between them.
      const beforeFirstRetry = await adapter.advance(299);
      const signInsBeforeFirstRetry = emulator.api.calls.signIn;
      await adapter.advance(1);
      await adapter.advance(599);
      const signInsBeforeSecondRetry = emulator.api.calls.signIn;
      await adapter.advance(1);
      const afterOneSecond = await adapter.advance(100);

      expect(status.lastError?.code).toBe(1030);
      expect(suite.host.alive).toBe(true);
      expect(beforeFirstRetry.state).toBe('backing-off');
      expect([signInsBeforeFirstRetry, signInsBeforeSecondRetry]).toEqual([1, 2]);
      expect(emulator.api.calls.signIn).toBe(3);
      expect(afterOneSecond.state).toBe('backing-off');
    });

    it('waits out error 1301 (too many tokens) without logging in again and reports it', async () => {
      emulator.api.tooManyTokens = true;
      const adapter = await startAdapter({ tooManyTokensWaitMs: 60_000, manualClock: true });

      await adapter.start();
      await eventually(async () => (await adapter.status()).state === 'locked-out', 'the session to be locked out');
      const lockedAt = await adapter.now();
      const failure = await adapter.failure(adapter.listDevices());
      const status = await adapter.advance(59_999);
      const signInsWhileLocked = emulator.api.calls.signIn;
      const again = await adapter.advance(1);

      expect(signInsWhileLocked).toBe(1);
      expect(status.state).toBe('locked-out');
      expect(status.lastError?.code).toBe(1301);
      expect(status.action).toContain('Do not restart the service');
      expect(status.retryAt).toBe(new Date(lockedAt + 60_000).toISOString());
      expect(failure.code).toBe('CLOUD_UNAVAILABLE');
      expect(failure.retryAfterSeconds).toBe(60);
      // At the end of the wait exactly one login, refused again: locked out for another wait.
      expect(emulator.api.calls.signIn).toBe(2);
      expect(again.retryAt).toBe(new Date(lockedAt + 120_000).toISOString());
    });

    it('backs off exponentially instead of looping when every new token is refused at once', async () => {
      emulator.api.rejectNewTokens = true;
      const adapter = await startAdapter({ manualClock: true });

      await adapter.start();
      await eventually(async () => (await adapter.status()).state === 'backing-off', 'the session to back off');
      const waits: number[] = [];
      const signIns: number[] = [];
      for (let i = 0; i < 4; i++) {
        const { retryAt } = await adapter.status();
        const wait = Date.parse(retryAt ?? '') - (await adapter.now());
        waits.push(wait);
        await adapter.advance(wait - 1);
        signIns.push(emulator.api.calls.signIn);
        await adapter.advance(1);
      }
      const status = await adapter.status();

      // Waits of 300, 600, 1200 ms, then the 2 s cap, between logins; one login at the end of each, none before.
      expect(waits).toEqual([300, 600, 1_200, 2_000]);
      expect(signIns).toEqual([1, 2, 3, 4]);
      expect(emulator.api.calls.signIn).toBe(5);
      expect(status.state).toBe('backing-off');
      expect(status.lastError?.code).toBe(1022);
    });

    it('logs in with the MFA code when the account needs one, and waits for a code without it', async () => {
      account = { ...account, mfaCode: '246810' };
      emulator.account.mfaCode = '246810';
      const withCode = await suite.host.create({ email: account.email, password: account.password, mfaCode: '246810', apiUrl: emulator.apiUrl });
      const withoutCode = await suite.host.create({ email: account.email, password: account.password, apiUrl: emulator.apiUrl });
      adapters.push(withCode, withoutCode);

      await connected(withCode);
      await withoutCode.start();
      await eventually(async () => (await withoutCode.status()).state === 'needs-mfa', 'the session without MFA code to wait for one');

      expect((await withCode.listDevices()).length).toBe(4);
      expect((await withoutCode.status()).lastError?.code).toBe(1033);
      expect(emulator.api.calls.signIn).toBe(2);
    });

    it('leaves no broker connection behind when stopped while the device list is on its way', async () => {
      emulator.api.delayMs = 400;
      const adapter = await startAdapter();
      const landed = () => suite.host.output.text.split('stopped while connecting').length - 1;
      const landedBefore = landed();

      await adapter.start();
      await eventually(() => emulator.api.calls.total > 0, 'the sign-in to be on its way');
      await adapter.stop();
      await eventually(() => landed() > landedBefore, 'the login to land after the stop');

      expect(emulator.api.calls.devList).toBe(1);
      expect(emulator.broker.connectedClients).toBe(0);
    });

    it('stops for good on wrong credentials instead of retrying the login', async () => {
      account = { ...account, password: 'not-the-password' };
      const adapter = await startAdapter({ manualClock: true });

      await adapter.start();
      await eventually(async () => (await adapter.status()).state === 'failed', 'the session to fail');
      const timers = await adapter.pendingTimers();
      const anHourLater = await adapter.advance(60 * 60_000);

      expect(anHourLater.state).toBe('failed');
      expect(anHourLater.retryAt).toBeNull();
      expect(emulator.api.calls.signIn).toBe(1);
      expect(anHourLater.lastError?.code).toBe(1004);
      expect(timers).toBe(1); // the broker watchdog only: no retry is armed
    });
  });

  describe('devices', () => {
    it('switches a channel on and off and the emulated device follows', async () => {
      const adapter = await startAdapter();
      await connected(adapter);
      await commandReady(adapter, STRIP);

      await adapter.setChannel(STRIP, 2, true);
      const afterOn = emulator.device(STRIP).isOn(2);
      await adapter.setChannel(STRIP, 2, false);

      expect(afterOn).toBe(true);
      expect(emulator.device(STRIP).isOn(2)).toBe(false);
      expect(emulator.requests('Appliance.Control.ToggleX', 'SET').map((r) => r.payload)).toEqual([
        { togglex: { channel: 2, onoff: 1 } },
        { togglex: { channel: 2, onoff: 0 } },
      ]);
      expect(adapter.events).toContainEqual({ type: 'channel', uuid: STRIP, channel: 2, on: true, source: 'command' });
    });

    it('reads channel states from Appliance.System.All', async () => {
      emulator.device(STRIP).set(3, true);
      const adapter = await startAdapter();
      await connected(adapter);
      await commandReady(adapter, STRIP);

      const states = await adapter.readChannels(STRIP);

      expect(states).toEqual([
        { channel: 0, on: false },
        { channel: 1, on: false },
        { channel: 2, on: false },
        { channel: 3, on: true },
        { channel: 4, on: false },
      ]);
    });

    it('lets a push that arrives while a state read is on its way win over the older answer', async () => {
      const adapter = await startAdapter();
      await connected(adapter);
      await commandReady(adapter, PLUG);
      emulator.device(PLUG).replyDelayMs = 400;

      const readsBefore = emulator.requests('Appliance.System.All', 'GET').length;
      const reading = adapter.readChannels(PLUG); // answered "off" at once, delivered 400 ms later
      await eventually(() => emulator.requests('Appliance.System.All', 'GET').length > readsBefore, 'the read request');
      emulator.pressButton(PLUG, 0); // switched on by hand meanwhile
      await eventually(() => adapter.events.find((e) => e.type === 'channel' && e.uuid === PLUG && e.on && e.source === 'push'), 'the push');

      expect(await reading).toEqual([{ channel: 0, on: true }]);
      expect(await adapter.readChannels(PLUG)).toEqual([{ channel: 0, on: true }]);
    });

    it('switches an old single-channel plug with Appliance.Control.Toggle', async () => {
      const adapter = await startAdapter();
      await connected(adapter);
      await commandReady(adapter, OLD_PLUG);

      await adapter.setChannel(OLD_PLUG, 0, true);

      expect(emulator.device(OLD_PLUG).isOn(0)).toBe(true);
      expect(emulator.requests('Appliance.Control.Toggle', 'SET').map((r) => r.payload)).toEqual([{ toggle: { onoff: 1 } }]);
      expect(await adapter.readChannels(OLD_PLUG)).toEqual([{ channel: 0, on: true }]);
    });

    it('reports a hub as not switchable once System.All shows no switch, and refuses to switch it', async () => {
      const adapter = await startAdapter();
      await connected(adapter);
      await commandReady(adapter, HUB);

      const hub = await eventually(async () => (await adapter.listDevices()).find((d) => d.uuid === HUB && !d.switchable), 'the hub');
      const failure = await adapter.failure(adapter.setChannel(HUB, 0, true));

      expect(hub.switchable).toBe(false);
      expect(failure.code).toBe('DEVICE_NOT_CONTROLLABLE');
    });

    it('turns a physical button press (cloud push) into a channel event', async () => {
      const adapter = await startAdapter();
      await connected(adapter);
      await commandReady(adapter, PLUG);

      emulator.pressButton(PLUG, 0);

      await eventually(() => adapter.events.find((e) => e.type === 'channel' && e.uuid === PLUG && e.on && e.source === 'push'), 'the push event');
    });

    it('reports a device going offline and refuses commands to it with DEVICE_NOT_CONTROLLABLE', async () => {
      const adapter = await startAdapter();
      await connected(adapter);
      await commandReady(adapter, PLUG);

      emulator.setOnline(PLUG, false);
      await eventually(() => adapter.events.find((e) => e.type === 'online' && e.uuid === PLUG && !e.online), 'the offline event');
      const failure = await adapter.failure(adapter.setChannel(PLUG, 0, true));

      expect(failure.code).toBe('DEVICE_NOT_CONTROLLABLE');
      expect(emulator.requests('Appliance.Control.ToggleX', 'SET')).toHaveLength(0);
    });

    it('turns an ERROR reply into CLOUD_ERROR with the device code', async () => {
      const adapter = await startAdapter();
      await connected(adapter);
      await commandReady(adapter, PLUG);
      emulator.device(PLUG).errorCode = 5020;

      const failure = await adapter.failure(adapter.setChannel(PLUG, 0, true));

      expect(failure.code).toBe('CLOUD_ERROR');
      expect(failure.message).toContain('5020');
    });

    it('answers CLOUD_TIMEOUT when the device never replies', async () => {
      const adapter = await startAdapter({ commandTimeoutMs: 500 });
      await connected(adapter);
      await commandReady(adapter, PLUG);
      emulator.device(PLUG).dropReplies = true;

      // The 500 ms command deadline, not a longer wait of the library's.
      const failure = await within(2_000, 'the command timing out', () => adapter.failure(adapter.setChannel(PLUG, 0, true)));

      expect(failure.code).toBe('CLOUD_TIMEOUT');
    });

    it('answers DEVICE_NOT_FOUND for a uuid the account does not have', async () => {
      const adapter = await startAdapter();
      await connected(adapter);

      const failure = await adapter.failure(adapter.setChannel('nope', 0, true));

      expect(failure.code).toBe('DEVICE_NOT_FOUND');
    });

    it('re-fetching the list keeps one device per uuid, drops removed ones and still commands the rest', async () => {
      const adapter = await startAdapter();
      await connected(adapter);
      await commandReady(adapter, PLUG);

      await adapter.listDevices();
      emulator.removeDevice(HUB);
      const devices = await adapter.listDevices();
      await adapter.setChannel(PLUG, 0, true);

      expect(devices.map((d) => d.uuid).sort()).toEqual([OLD_PLUG, PLUG, STRIP].sort());
      expect(emulator.device(PLUG).isOn(0)).toBe(true);
      expect(adapter.events.filter((e) => e.type === 'channel' && e.uuid === PLUG && e.source === 'command')).toHaveLength(1);
    });

    it('shows a broker that refuses the login in the session status', async () => {
      const adapter = await startAdapter();
      await connected(adapter);
      await commandReady(adapter, PLUG);
      const key = emulator.account.key;
      emulator.account.key = 'a-different-key-now';

      await emulator.restartBroker(100);
      const status = await eventually(
        async () => {
          const s = await adapter.status();
          return s.lastError?.code === 'mqtt' && s.lastError.message.includes('refused') ? s : undefined;
        },
        { what: 'the broker error in the status', timeoutMs: 15_000 },
      );
      emulator.account.key = key;

      expect(status.state).toBe('connected');
      expect((await adapter.listDevices()).find((d) => d.uuid === PLUG)?.commandReady).toBe(false);
    });

    it('survives malformed pushes (not JSON, no header) and keeps handling the next ones', async () => {
      const adapter = await startAdapter();
      await connected(adapter);
      await commandReady(adapter, PLUG);

      emulator.broker.pushRaw('this is not json');
      emulator.broker.pushRaw('{"payload":{"togglex":{"channel":0,"onoff":1}}}');
      emulator.broker.pushRaw(
        '{"header":{"from":"/appliance/plug0000000000000000000000000001/publish","method":"PUSH","namespace":"Appliance.Control.ToggleX"},"payload":{"togglex":"garbage"}}',
      );
      emulator.pressButton(PLUG, 0);

      await eventually(() => adapter.events.find((e) => e.type === 'channel' && e.uuid === PLUG && e.on), 'the valid push after the broken ones');
      expect(suite.host.alive).toBe(true);
      expect((await adapter.status()).state).toBe('connected');
    });

    it('reconnects to the broker after a restart and commands work again', async () => {
      const adapter = await startAdapter();
      await connected(adapter);
      await commandReady(adapter, PLUG);

      await emulator.restartBroker(200);
      await eventually(() => adapter.events.find((e) => e.type === 'device' && e.device.uuid === PLUG && !e.device.commandReady), 'the drop');
      await commandReady(adapter, PLUG);
      await adapter.setChannel(PLUG, 0, true);

      expect(emulator.device(PLUG).isOn(0)).toBe(true);
      // The first connection and the one after the restart.
      expect(emulator.broker.connections).toBe(2);
    });
  });

  it('writes no password, password hash, token or key to its output, even at debug level', async () => {
    const adapter = await startAdapter();
    await connected(adapter);
    await commandReady(adapter, STRIP);
    await adapter.setChannel(STRIP, 1, true);
    await adapter.readChannels(STRIP);
    emulator.api.revokeTokens();
    await adapter.listDevices();
    await adapter.stop();

    const ownTokens = emulator.api.issuedTokens;
    const all = { ...secrets, ...Object.fromEntries(ownTokens.map((t, i) => [`own token ${i}`, t])) };
    expect(ownTokens).toHaveLength(2);
    expect(Object.keys(secrets).length).toBeGreaterThan(40);
    expect(suite.host.output.text).toContain('meross api call');
    expect(suite.host.output.text).toContain('commandReady');
    expect(suite.host.output.leaked({ ...all, password: account.password, key: account.key, md5: md5(account.password) })).toEqual([]);
    expect(suite.host.alive).toBe(true);
  });
});
