import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { adapterHostForSuite, emulatedAdapterOptions, type RemoteCloud, type RemoteCloudOptions } from '../emulator/adapter-process.js';
import { eventually } from '@homeops/test-kit';
import { createAccount, MerossEmulator, type EmulatedAccount, type EmulatedDeviceSpec } from '../emulator/meross-emulator.js';

// The real meross-cloud library against the emulated cloud: what a real account meets beyond the happy path.
const PLUG = 'plug0000000000000000000000000001';
const STRIP = 'strip000000000000000000000000002';
const DEVICES: EmulatedDeviceSpec[] = [
  { uuid: PLUG, name: 'Desk lamp', type: 'mss310', broker: 0 },
  { uuid: STRIP, name: 'Power strip', type: 'mss425f', outlets: ['Monitor', 'Printer'], broker: 1 },
];

describe('a real Meross account stays safe (adapter against the emulated cloud)', { timeout: 30_000 }, () => {
  const suite = adapterHostForSuite();
  let account: EmulatedAccount;
  let emulator: MerossEmulator;
  let dir: string;
  const adapters: RemoteCloud[] = [];

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'meross-safety-'));
    account = createAccount();
    emulator = await MerossEmulator.start({ pki: suite.pki, account, devices: DEVICES, brokers: 2 });
  });
  afterEach(async () => {
    await Promise.all(adapters.splice(0).map((a) => a.stop()));
    await emulator.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  async function startAdapter(overrides: Partial<RemoteCloudOptions> = {}): Promise<RemoteCloud> {
    const adapter = await suite.host.create(
      emulatedAdapterOptions(account, emulator.apiUrl, dir, {
        tooManyTokensWaitMs: 60_000,
        lockoutWaitMs: 60_000,
        brokerRecovery: { recreateMs: 200, maxRecreateMs: 1_000, watchdogMs: 500, reconnectMs: 250 },
        ...overrides,
      }),
    );
    adapters.push(adapter);
    await adapter.start();
    return adapter;
  }

  async function commandReady(adapter: RemoteCloud, uuids: string[]): Promise<void> {
    await eventually(
      async () => {
        const devices = await adapter.listDevices().catch(() => []);
        return uuids.every((uuid) => devices.find((d) => d.uuid === uuid)?.commandReady);
      },
      `${uuids.join(', ')} to be command-ready`,
    );
  }

  describe('devices on two MQTT brokers', () => {
    it('switches, reads and hears button presses on each broker, whichever connected last', async () => {
      const adapter = await startAdapter();
      await commandReady(adapter, [PLUG, STRIP]);

      await adapter.setChannel(PLUG, 0, true);
      await adapter.setChannel(STRIP, 2, true);
      const plug = await adapter.readChannels(PLUG);
      const strip = await adapter.readChannels(STRIP);
      emulator.pressButton(PLUG, 0);
      emulator.pressButton(STRIP, 1);
      await eventually(() => adapter.events.filter((e) => e.type === 'channel' && e.source === 'push').length === 2, 'both pushes');

      expect(emulator.device(PLUG).isOn(0)).toBe(false);
      expect(emulator.device(STRIP).isOn(2)).toBe(true);
      expect(plug).toContainEqual({ channel: 0, on: true });
      expect(strip).toContainEqual({ channel: 2, on: true });
      expect(emulator.requests('Appliance.Control.ToggleX').map((r) => [r.uuid, r.broker])).toEqual([
        [PLUG, 0],
        [STRIP, 1],
      ]);
      expect(adapter.events).toContainEqual({ type: 'channel', uuid: STRIP, channel: 1, on: true, source: 'push' });
    });

    it('keeps the other broker working while one restarts, and both work after it without a new login', async () => {
      const adapter = await startAdapter();
      await commandReady(adapter, [PLUG, STRIP]);

      const restart = emulator.restartBroker(1_000, 1);
      await eventually(async () => (await adapter.listDevices()).find((d) => d.uuid === STRIP)?.commandReady === false, 'the strip to lose its broker');
      await adapter.setChannel(PLUG, 0, true);
      const refused = await adapter.failure(adapter.setChannel(STRIP, 1, true));
      await restart;
      await commandReady(adapter, [STRIP]);
      await adapter.setChannel(STRIP, 1, true);

      expect(refused.code).toBe('DEVICE_NOT_CONTROLLABLE');
      expect(emulator.device(PLUG).isOn(0)).toBe(true);
      expect(emulator.device(STRIP).isOn(1)).toBe(true);
      expect(emulator.api.calls.signIn).toBe(1);
    });
  });

  describe('lock-out and throttle codes at login', () => {
    const cases: Array<{ code: number; state: string; action: string | null }> = [
      { code: 1004, state: 'failed', action: 'Fix CLOUD_EMAIL and CLOUD_PASSWORD (the Meross cloud answered 1004: wrong email or password)' },
      { code: 1003, state: 'failed', action: 'answered 1003: account disabled or deleted' },
      { code: 1028, state: 'locked-out', action: 'answered 1028 (requested too frequently); the service sends nothing until' },
      { code: 1035, state: 'locked-out', action: 'answered 1035 (operation is locked)' },
      { code: 1042, state: 'locked-out', action: 'answered 1042 (API top limit reached)' },
      { code: 1043, state: 'locked-out', action: 'answered 1043 (resource access denied)' },
      { code: 1301, state: 'locked-out', action: 'Do not restart the service or sign in elsewhere meanwhile' },
      { code: 1032, state: 'needs-mfa', action: 'POST /cloud/login' },
      { code: 1033, state: 'needs-mfa', action: 'POST /cloud/login' },
    ];
    for (const { code, state, action } of cases) {
      it(`answers ${code} with state ${state}, says what to do, and logs in no more`, async () => {
        emulator.api.answerWith.signIn = { apiStatus: code };
        const adapter = await startAdapter({ manualClock: true });

        await eventually(async () => (await adapter.status()).state === state, `state ${state}`);
        const refusedAt = await adapter.now();
        // Up to the last millisecond of the lock-out (an hour where nothing is due): no timer fires, no login.
        const status = await adapter.advance(state === 'locked-out' ? 59_999 : 60 * 60_000);
        const failure = await adapter.failure(adapter.setChannel(PLUG, 0, true));

        expect(status.state).toBe(state);
        expect(status.lastError?.code).toBe(code);
        expect(status.action).toContain(action);
        expect(status.retryAt).toBe(state === 'locked-out' ? new Date(refusedAt + 60_000).toISOString() : null);
        expect(emulator.api.calls.signIn).toBe(1);
        expect(failure.code).toBe('CLOUD_UNAVAILABLE');
      });
    }

    for (const code of [1019, 1022, 1200]) {
      it(`answers ${code} on the saved token's device list by logging in exactly once more`, async () => {
        const first = await startAdapter();
        await eventually(async () => (await first.status()).state === 'connected', 'the first session');
        await first.stop();
        emulator.api.answerWith.devList = { apiStatus: code, times: 1 };

        const second = await startAdapter();
        await eventually(async () => (await second.status()).state === 'connected', 'the second session');

        expect(emulator.api.calls.signIn).toBe(2);
      });
    }

    /** Lets the adapter's clock run for `ms` in the steps its timers set; the sign-ins counted at each timer. */
    async function runClock(adapter: RemoteCloud, ms: number): Promise<{ waits: number[]; signIns: number[] }> {
      const end = (await adapter.now()) + ms;
      const waits: number[] = [];
      const signIns: number[] = [];
      for (;;) {
        const { retryAt } = await adapter.status();
        const now = await adapter.now();
        const due = retryAt === null ? end : Math.min(end, Date.parse(retryAt));
        if (due >= end) {
          await adapter.advance(end - now);
          return { waits, signIns };
        }
        waits.push(due - now);
        await adapter.advance(due - now);
        signIns.push(emulator.api.calls.signIn);
      }
    }

    it('follows 1030 without a usable domain only with the growing backoff', async () => {
      emulator.api.answerWith.signIn = { apiStatus: 1030 };
      const adapter = await startAdapter({ manualClock: true });
      await eventually(async () => (await adapter.status()).state === 'backing-off', 'the first refusal');

      const { waits, signIns } = await runClock(adapter, 2_000);

      // 300 and 600 ms between sign-ins, the next after 1.2 s: three in two seconds of the clock.
      expect(waits).toEqual([300, 600]);
      expect(signIns).toEqual([2, 3]);
      expect((await adapter.status()).state).toBe('backing-off');
      expect(emulator.api.calls.signIn).toBe(3);
    });

    it('logs an unknown code once with its number and backs off instead of looping', async () => {
      emulator.api.answerWith.signIn = { apiStatus: 4242 };
      const adapter = await startAdapter({ manualClock: true });
      await eventually(async () => (await adapter.status()).state === 'backing-off', 'the first refusal');

      const { waits } = await runClock(adapter, 2_000);

      expect(waits).toEqual([300, 600]);
      expect((await adapter.status()).state).toBe('backing-off');
      expect(emulator.api.calls.signIn).toBe(3);
      expect(suite.host.output.text.split('unknown error code 4242').length - 1).toBe(1);
    });

    it('stops sending anything, MQTT included, when the device list answers a throttle code while connected', async () => {
      const adapter = await startAdapter({ manualClock: true });
      await commandReady(adapter, [PLUG]);
      emulator.api.answerWith.devList = { apiStatus: 1028 };
      const sentBefore = emulator.messageCounts();

      const sync = await adapter.failure(adapter.listDevices());
      const command = await adapter.failure(adapter.setChannel(PLUG, 0, true));
      // The whole lock-out but its last millisecond passes on the adapter's clock (its broker watchdog included).
      const status = await adapter.advance(59_999);

      expect(sync.code).toBe('CLOUD_UNAVAILABLE');
      expect(command.code).toBe('CLOUD_UNAVAILABLE');
      expect(status.state).toBe('locked-out');
      expect(emulator.messageCounts()).toEqual({ ...sentBefore, api: sentBefore.api + 1 });
    });
  });

  describe('MFA renewal without a restart', () => {
    it('waits for a code when the token of an MFA account expires, refuses a wrong one at the cost of one login, and takes the right one', async () => {
      emulator.account.mfaCode = '135790';
      const adapter = await startAdapter({ mfaCode: '135790', manualClock: true });
      await eventually(async () => (await adapter.status()).state === 'connected', 'the first login');
      emulator.api.revokeTokens();
      emulator.account.mfaCode = '246802';

      await adapter.failure(adapter.listDevices());
      await eventually(async () => (await adapter.status()).state === 'needs-mfa', 'the session to ask for a code');
      const waiting = await adapter.advance(60 * 60_000);
      const loginsBefore = emulator.api.calls.signIn;
      const wrong = await adapter.failure(adapter.submitMfaCode('111111'));
      const loginsAfterWrong = emulator.api.calls.signIn;
      await adapter.submitMfaCode('246802');

      // The stale configured code was never sent again: the expired token went straight to needs-mfa.
      expect(waiting.state).toBe('needs-mfa');
      expect(loginsBefore).toBe(1);
      expect(wrong.code).toBe('MFA_CODE_REJECTED');
      expect(loginsAfterWrong).toBe(2);
      expect((await adapter.status()).state).toBe('connected');
      expect(emulator.api.calls.signIn).toBe(3);
      expect(JSON.parse(readFileSync(join(dir, 'cloud-token.json'), 'utf8'))).toMatchObject({ mfa: true });
    });

    it('answers CLOUD_LOGIN_NOT_NEEDED to a code while connected, without a login', async () => {
      const adapter = await startAdapter();
      await eventually(async () => (await adapter.status()).state === 'connected', 'the session');

      const failure = await adapter.failure(adapter.submitMfaCode('123456'));

      expect(failure.code).toBe('CLOUD_LOGIN_NOT_NEEDED');
      expect(emulator.api.calls.signIn).toBe(1);
    });
  });

  describe('devices installing firmware', () => {
    it('reports onlineStatus 3 as upgrading, not online, and refuses commands until it is done', async () => {
      emulator.device(STRIP).upgrading = true;
      const adapter = await startAdapter();
      await commandReady(adapter, [PLUG]);

      const listed = (await adapter.listDevices()).find((d) => d.uuid === STRIP);
      const refused = await adapter.failure(adapter.setChannel(STRIP, 1, true));
      emulator.setUpgrading(STRIP, false);
      await eventually(() => adapter.events.some((e) => e.type === 'online' && e.uuid === STRIP && e.online), 'the strip back online');

      expect(listed).toMatchObject({ online: false, upgrading: true });
      expect(refused.code).toBe('DEVICE_NOT_CONTROLLABLE');
      expect(refused.details?.[0]?.message).toContain('installing a firmware update');
    });
  });

  describe("the library's reconnect hazards", () => {
    it('counts a device ready only once its broker acknowledged the subscriptions, so the first push is heard', async () => {
      for (const broker of emulator.brokers) broker.subscribeDelayMs = 800;
      const adapter = await startAdapter();
      await eventually(() => emulator.brokers.every((b) => b.connectedClients === 1), 'both brokers connected');
      const whileSubscribing = await adapter.listDevices();
      await commandReady(adapter, [PLUG, STRIP]);

      emulator.pressButton(PLUG, 0);
      emulator.pressButton(STRIP, 1);
      await eventually(() => adapter.events.filter((e) => e.type === 'channel' && e.source === 'push').length === 2, 'both pushes');

      expect(whileSubscribing.filter((d) => d.commandReady)).toEqual([]);
      await adapter.setChannel(PLUG, 0, false);
      expect(emulator.device(PLUG).isOn(0)).toBe(false);
    });

    it(
      'recovers the command channel without a login after a broker refuses reconnections, with no tight loop, and stops cleanly during a reconnect',
      { timeout: 60_000 },
      async () => {
        const adapter = await startAdapter({ manualClock: true });
        await commandReady(adapter, [PLUG, STRIP]);
        const devListBefore = emulator.api.calls.devList;
        // The broker watchdog is always armed; a second timer is the broker's next re-creation.
        const recreationArmed = () => eventually(async () => (await adapter.pendingTimers()) === 2, 'the next re-creation to be armed');

        // The broker drops during a burst of commands and refuses connections ('Server unavailable') for a while.
        const burst = Array.from({ length: 10 }, (_, i) =>
          adapter.setChannel(PLUG, 0, i % 2 === 0).then(
            () => 'ok',
            (e: { code?: string }) => e.code,
          ),
        );
        const broker = emulator.brokers[0]!;
        broker.refuseConnections = 3;
        await broker.close();
        await broker.listen();
        const outcomes = await Promise.all(burst);
        // mqtt.js tries again after reconnectMs; from the first refusal on, meross-cloud would make a new client at once.
        await eventually(() => broker.refusedConnections > 0, 'the first refused reconnection');
        const attemptsBefore = broker.attempts;
        // 2.4 s of the adapter's clock in the steps of the re-creation backoff: nothing before a wait is over, then one attempt.
        const armedJustBefore: number[] = [];
        for (const wait of [200, 400, 800, 1_000]) {
          await recreationArmed();
          await adapter.advance(wait - 1);
          armedJustBefore.push(await adapter.pendingTimers());
          const attempts = broker.attempts;
          await adapter.advance(1);
          await eventually(() => broker.attempts === attempts + 1, 'the re-created connection');
        }
        const refusedInTheBackoff = broker.attempts - attemptsBefore;
        broker.refuseConnections = null;
        // Watched through events: listing devices would fetch the list, which is what the recovery must not need.
        const seen = adapter.events.length;
        await recreationArmed();
        await adapter.advance(1_000);
        await eventually(() => adapter.events.slice(seen).some((e) => e.type === 'device' && e.device.uuid === PLUG && e.device.commandReady), {
          what: 'the command channel back',
          timeoutMs: 15_000,
        });
        await adapter.setChannel(PLUG, 0, true);

        expect(outcomes.every((o) => ['ok', 'DEVICE_NOT_CONTROLLABLE', 'CLOUD_TIMEOUT'].includes(o ?? ''))).toBe(true);
        expect(armedJustBefore).toEqual([2, 2, 2, 2]);
        expect(refusedInTheBackoff).toBe(4);
        expect(emulator.device(PLUG).isOn(0)).toBe(true);
        expect(emulator.api.calls.signIn).toBe(1);
        expect(emulator.api.calls.devList).toBe(devListBefore);

        // Stop while the broker refuses again and the adapter is between attempts.
        broker.refuseConnections = 3;
        await broker.close();
        await broker.listen();
        const refusedBefore = broker.refusedConnections;
        await eventually(() => broker.refusedConnections > refusedBefore, { what: 'a refused reconnection', timeoutMs: 15_000 });
        await adapter.stop();
        const attemptsAtStop = broker.attempts;
        const timersAtStop = await adapter.pendingTimers();
        await adapter.advance(60 * 60_000);

        expect(timersAtStop).toBe(0);
        expect(broker.attempts).toBe(attemptsAtStop);
        expect(suite.host.alive).toBe(true);
      },
    );
  });
});
