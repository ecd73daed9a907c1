import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from '@homeops/test-kit';
import { startEmulatedSetup, type EmulatedSetup } from './emulated-setup.js';
import { EmulatedService } from './service-process.js';

// The account-safety paths as a user meets them: src/main.ts over HTTP against the emulated Meross cloud.
const PLUG = 'plug0000000000000000000000000001';
/** How long Meross locks an account out after error 1301 (too many tokens). */
const LOCKOUT_MS = 5 * 60 * 60_000;

interface Health {
  status: string;
  problems: string[];
  cloud: { state: string; action: string | null; retryAt: string | null };
  budget: { windows: Array<{ window: string; limit: number; used: number; remaining: number }>; sent: { api: number; mqtt: number; lan: number } };
  sync: { source: 'cloud' | 'stored' | null };
}

describe('account safety, as a user meets it (src/main.ts against the emulated cloud)', { timeout: 60_000 }, () => {
  let setup: EmulatedSetup | undefined;
  afterEach(async () => {
    await setup?.stop();
    setup = undefined;
  });

  async function health(): Promise<{ status: number; body: Health }> {
    const res = await setup!.service.request('GET', '/health');
    return { status: res.status, body: res.body as Health };
  }

  it('answers 429 with Retry-After past the burst window and shows each window in /health', async () => {
    setup = await startEmulatedSetup('budget', { CLOUD_MAX_MESSAGES_PER_MINUTE: '8', CLOUD_BACKGROUND_READ_INTERVAL_SECONDS: '3600' });
    await eventually(async () => {
      const list = await setup!.service.request('GET', '/devices');
      return list.status === 200 && (list.body as Array<{ uuid: string; controllable: boolean }>).some((d) => d.uuid === PLUG && d.controllable);
    }, 'the plug to be controllable');
    const answers = [];
    for (let i = 0; i < 8; i += 1) answers.push(await setup.service.request('PUT', `/devices/${PLUG}/channels/0`, { on: i % 2 === 0 }));

    const refused = answers.find((a) => a.status === 429);
    const { body } = await health();

    expect(refused?.body).toMatchObject({ error: expect.stringContaining('8 messages per minute'), solution: expect.any(String) });
    expect(Number(refused?.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(body.budget.windows.map((w) => [w.window, w.limit])).toEqual([
      ['hour', 180],
      ['burst', 8],
    ]);
    expect(body.budget.windows[1]?.remaining).toBe(0);
    // Everything the emulator received was counted by the service: nothing reaches the cloud unbudgeted.
    const counts = setup.emulator.messageCounts();
    expect(body.budget.sent).toEqual({ api: counts.api, mqtt: counts.mqttRequests, lan: counts.lanRequests });
  });

  it('says in /health what to do while the account is locked out, and logs in no more', async () => {
    setup = await startEmulatedSetup('lockout', {});
    await eventually(async () => (await health()).body.cloud.state === 'connected', 'the session');
    await setup.service.stop();
    setup.emulator.api.revokeTokens();
    setup.emulator.api.answerWith.signIn = { apiStatus: 1301 };
    const restartedAt = Date.now();
    const restarted = await startEmulatedSetupAgain(setup);

    await eventually(async () => (await health()).body.cloud.state === 'locked-out', 'the lock-out');
    const { status, body } = await health();
    const lockedOutBy = Date.now();
    const devices = await restarted.request('GET', '/devices');

    expect(status).toBe(200);
    expect(body.status).toBe('degraded');
    expect(body.problems.join(' ')).toContain('Do not restart the service or sign in elsewhere meanwhile');
    // Five hours (error 1301) from the refused sign-in, which fell between the restart and the answer above.
    const retryAt = Date.parse(body.cloud.retryAt ?? '');
    expect(retryAt).toBeGreaterThanOrEqual(restartedAt + LOCKOUT_MS);
    expect(retryAt).toBeLessThanOrEqual(lockedOutBy + LOCKOUT_MS);
    // The list of the last run is kept beside the token (local control, issue 23): it is listed, from storage.
    expect(devices.status).toBe(200);
    expect(body.sync.source).toBe('stored');
    expect(setup.emulator.api.calls.signIn).toBe(2);
  });

  it('asks for an MFA code when the token of an MFA account expires and takes it over POST /cloud/login, no restart', async () => {
    setup = await startEmulatedSetup('mfa', { CLOUD_MFA_CODE: '135790' }, { mfaCode: '135790' });
    await eventually(async () => (await health()).body.cloud.state === 'connected', 'the session');
    setup.emulator.api.revokeTokens();
    setup.emulator.account.mfaCode = '864209';

    await setup.service.request('POST', '/devices/sync');
    await eventually(async () => (await health()).body.cloud.state === 'needs-mfa', 'needs-mfa');
    const waiting = await health();
    const malformed = await setup.service.request('POST', '/cloud/login', { mfaCode: '12' });
    const wrong = await setup.service.request('POST', '/cloud/login', { mfaCode: '000000' });
    const right = await setup.service.request('POST', '/cloud/login', { mfaCode: '864209' });
    expect(right.status, JSON.stringify(right.body)).toBe(200);
    // The sync that failed while the session was down runs again once it is up (on a busy machine it takes a while).
    await eventually(async () => (await health()).body.status === 'ok', { what: 'the service back to ok', timeoutMs: 20_000 }).catch(async (err: unknown) => {
      throw new Error(`${(err as Error).message}; /health: ${JSON.stringify((await health()).body)}`);
    });

    expect(waiting.status).toBe(503);
    expect(waiting.body.cloud.action).toContain('POST /cloud/login');
    expect(malformed.status).toBe(400);
    expect(wrong.status).toBe(400);
    expect(wrong.body).toMatchObject({ error: expect.stringContaining('rejected the MFA code'), solution: expect.any(String) });
    // The first login, the wrong code, the right one: the stale configured code was never sent again.
    expect(setup.emulator.api.calls.signIn).toBe(3);
  });
});

/** The same emulator and work dir (saved token included) with a fresh service process, as after a restart. */
async function startEmulatedSetupAgain(setup: EmulatedSetup): Promise<EmulatedService> {
  const service = await EmulatedService.start({ apiUrl: setup.emulator.apiUrl, account: setup.account, caFile: setup.pki.caFile, workDir: setup.workDir });
  Object.assign(setup, { service });
  return service;
}
