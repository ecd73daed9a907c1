import { eventually, within } from '@homeops/test-kit';
import { afterEach, describe, expect, it } from 'vitest';
import { createAccount, MerossEmulator } from '../emulator/meross-emulator.js';
import { delta, LanSetup, PLUG } from './lan-setup.js';

let setup: LanSetup | undefined;
let foreign: MerossEmulator | undefined;
afterEach(async () => {
  await setup?.stop();
  await foreign?.stop();
  setup = foreign = undefined;
});

const plugOnly = () => [{ uuid: PLUG, name: 'Desk lamp', type: 'mss310' }];

/** The service logged that the device's cloud command channel came up (and has not logged it down since). */
function commandChannelUp(lan: LanSetup, uuid: string): boolean {
  const changes = lan.service!.output.split('\n').filter((line) => line.includes('meross command channel changed') && line.includes(uuid));
  return changes.at(-1)?.includes('"commandReady":true') ?? false;
}

describe('local control when the LAN fails a device (src/main.ts against the emulated cloud and LAN)', { timeout: 60_000 }, () => {
  for (const failure of ['refused', 'hang'] as const) {
    it(`falls back to the cloud within the same request and within the budget when the address ${failure === 'refused' ? 'refuses connections' : 'never answers'}`, async () => {
      setup = await LanSetup.create(plugOnly());
      await setup.startService();
      await setup.allOnLan();
      const before = setup.counts();
      await setup.emulator.setLanReachable(PLUG, failure === 'refused' ? false : 'hang');

      // One LAN deadline (500 ms here) at most, then the cloud.
      const res = await within(2_500, 'the switch falling back to the cloud', () => setup!.request('PUT', `/devices/${PLUG}/channels/0`, { on: true }));
      const device = await setup.device(PLUG);
      const again = await setup.request('PUT', `/devices/${PLUG}/channels/0`, { on: false });
      const { body: health } = await setup.health();

      expect(res.status).toBe(200);
      expect(setup.emulator.device(PLUG).isOn(0)).toBe(false);
      expect(device).toMatchObject({
        transport: 'cloud',
        address: setup.emulator.lanHost(PLUG),
        lanProblem: expect.stringMatching(/^no answer over the LAN since/),
      });
      expect(again.status).toBe(200);
      // The first request: a System.All that checks the address, the abilities (never read before: a switch command
      // does not reserve that read, as before) and the command; the second: the command only.
      expect(delta(setup.counts(), before)).toMatchObject({ mqttRequests: 4, signIn: 0 });
      expect(setup.emulator.requests('Appliance.System.All').length).toBe(2);
      // Every message that reached the cloud went through the budget.
      expect(health.budget.sent.mqtt).toBe(setup.counts().mqttRequests);
      expect(health.lan).toMatchObject({ summary: '0 of 1 devices', cloud: 1 });
    });
  }

  it('learns a changed address (a new DHCP lease) through one System.All and takes the LAN there in the same request', async () => {
    setup = await LanSetup.create(plugOnly());
    await setup.startService();
    await setup.allOnLan();
    const oldAddress = setup.emulator.lanHost(PLUG);
    const before = setup.counts();
    await setup.emulator.moveLan(PLUG);

    const res = await setup.request('POST', `/devices/${PLUG}/toggle`, {});
    const device = await setup.device(PLUG);

    expect(res.status).toBe(200);
    expect(setup.emulator.device(PLUG).isOn(0)).toBe(true);
    expect(setup.emulator.lanHost(PLUG)).not.toBe(oldAddress);
    expect(device).toMatchObject({ transport: 'lan', address: setup.emulator.lanHost(PLUG), lanProblem: null });
    // Only the System.All that told the new address went through the cloud; the toggle went over the LAN.
    expect(delta(setup.counts(), before)).toMatchObject({ mqttRequests: 1 });
    expect(setup.emulator.lanRequests('Appliance.Control.ToggleX').at(-1)?.address).toBe(setup.emulator.device(PLUG).lanAddress);
  });

  it('reports a device that answers 5001 (another key) once in /health, uses the cloud for it, and never loops', async () => {
    // At the pinned address answers a device bound to another account: it refuses our signature with 5001.
    foreign = await MerossEmulator.start({ pki: (setup = await LanSetup.create(plugOnly())).pki, account: createAccount(), devices: plugOnly() });
    // The foreign device answers at once: a deadline a loaded machine cannot miss, so one request settles it.
    await setup.startService({ MEROSS_LAN_ADDRESSES: `${PLUG}=${foreign.lanHost(PLUG)}`, MEROSS_LAN_TIMEOUT_MS: '3000' });
    await eventually(async () => (await setup!.devices()).some((d) => d.uuid === PLUG && d.controllable), 'the plug listed and reachable');
    await eventually(async () => (await setup!.health()).body.cloud.state === 'connected', 'the session');
    // The cloud carries what the LAN refuses only once the plug's command channel is up (its broker acknowledged the
    // subscriptions). Before that a command meets a 409 that is right: neither the LAN nor the cloud reaches the plug.
    await eventually(() => commandChannelUp(setup!, PLUG), 'the cloud command channel to the plug');

    const answers = [];
    for (let i = 0; i < 5; i += 1) answers.push((await setup.request('PUT', `/devices/${PLUG}/channels/0`, { on: i % 2 === 0 })).status);
    const { body: health } = await setup.health();
    const device = await setup.device(PLUG);

    expect(answers).toEqual([200, 200, 200, 200, 200]);
    expect(setup.emulator.device(PLUG).isOn(0)).toBe(true);
    // One request reached the foreign device: its 5001 settled it.
    expect(foreign.lanRequests().length).toBe(1);
    expect(device).toMatchObject({ transport: 'cloud', lanProblem: 'the device refused the account key over the LAN (5001); it uses the cloud' });
    expect(health.problems.filter((p: string) => p.includes('5001'))).toEqual([
      'Desk lamp: the device refused the account key over the LAN (5001); it uses the cloud',
    ]);
    expect(health.lan.problems).toHaveLength(1);
  });

  it("answers a command with the device's 5001 when it is bound to another account and the cloud cannot carry the command", async () => {
    foreign = await MerossEmulator.start({ pki: (setup = await LanSetup.create(plugOnly())).pki, account: createAccount(), devices: plugOnly() });
    // Polling off: the command is the first message to reach the foreign device.
    const env = {
      MEROSS_LAN_ADDRESSES: `${PLUG}=${foreign.lanHost(PLUG)}`,
      MEROSS_LAN_POLL_SECONDS: '0',
      MEROSS_LAN_TIMEOUT_MS: '3000',
      CLOUD_REQUEST_TIMEOUT_MS: '1000',
    };
    await setup.startService(env);
    await eventually(async () => (await setup!.devices()).some((d) => d.uuid === PLUG), 'the plug listed');
    await setup.stopService();
    await setup.emulator.cloudDown();
    const firstRun = foreign.lanRequests().length;
    await setup.startService(env);
    await eventually(async () => (await setup!.devices().catch(() => [])).some((d) => d.uuid === PLUG && d.transport === 'lan'), 'the stored plug');

    const res = await setup.request('PUT', `/devices/${PLUG}/channels/0`, { on: true });
    const device = await setup.device(PLUG);

    expect(res.status).toBe(502);
    expect(res.body).toMatchObject({ code: 'CLOUD_ERROR', error: expect.stringContaining('answered ERROR 5001'), solution: expect.stringMatching(/account/) });
    expect(res.body.error).not.toMatch(/did not answer/);
    // Plain, as its abilities (none declared yet) say; the device read it and refused it.
    expect(
      foreign
        .lanRequests()
        .slice(firstRun)
        .map((r) => [r.namespace, r.encrypted]),
    ).toEqual([['Appliance.System.Ability', false]]);
    expect(device).toMatchObject({ lanProblem: 'the device refused the account key over the LAN (5001); it uses the cloud' });
    expect(setup.emulator.device(PLUG).isOn(0)).toBe(false);
  });
});
