import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, freePort, Mosquitto, MqttRecorder, ServiceProcess, watchChild } from '../../packages/test-kit/src/index.js';
import { deviceTopics } from '../../services/device-control/src/adapters/mqtt/device-entities.js';

// The example flow of docs/home-assistant.md in a real Node-RED 4, imported and deployed through its admin API, against
// both services as `pnpm start` runs them and a real Mosquitto: a plug switched off twice, syncs, and Home Assistant's
// `online` make exactly one notification (the bridge publishes a state on change; the flow filters repeats).
const FLOW = JSON.parse(readFileSync(join(import.meta.dirname, '../../docs/node-red/homeops-flow.json'), 'utf8')) as Array<{ id: string }>;
const RED_JS = createRequire(import.meta.url).resolve('node-red/red.js');
const PLUG = deviceTopics('homeops/device-control', 'sim-plug-0001');
/** The flow's filter in front of the notification. */
const FILTER = 'homeops.state-changes';

/** Node-RED in a child process on loopback, with a throwaway user folder; it logs a metric line per message a node receives. */
class NodeRed {
  output = '';
  private readonly exited: Promise<void>;

  private constructor(
    private readonly child: ChildProcess,
    readonly url: string,
    private readonly dir: string,
  ) {
    this.exited = watchChild(child, (text) => (this.output += text)).then(() => undefined);
  }

  static async start(env: Record<string, string>): Promise<NodeRed> {
    const dir = mkdtempSync(join(tmpdir(), 'node-red-'));
    const port = await freePort();
    const settings = {
      uiHost: '127.0.0.1',
      uiPort: port,
      flowFile: 'flows.json',
      credentialSecret: false,
      editorTheme: { tours: false },
      telemetry: { enabled: false },
      diagnostics: { enabled: false },
      externalModules: { autoInstall: false, palette: { allowInstall: false } },
      logging: { console: { level: 'info', metrics: true, audit: false } },
    };
    writeFileSync(join(dir, 'settings.js'), `module.exports = ${JSON.stringify(settings)};\n`);
    const child = spawn(process.execPath, [RED_JS, '--userDir', dir, '--settings', join(dir, 'settings.js')], {
      env: { PATH: process.env.PATH ?? '', HOME: dir, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const red = new NodeRed(child, `http://127.0.0.1:${port}`, dir);
    await eventually(
      async () => {
        if (child.exitCode !== null) throw new Error(`node-red exited: ${red.output}`);
        return (await fetch(`${red.url}/flows`, { signal: AbortSignal.timeout(2_000) }).catch(() => null))?.ok;
      },
      { what: 'Node-RED to answer its admin API', timeoutMs: 60_000, intervalMs: 200 },
    );
    return red;
  }

  /** Imports and deploys a flow, as Menu → Import, then Deploy, does. */
  async deploy(flow: unknown[]): Promise<void> {
    const res = await fetch(`${this.url}/flows`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'Node-RED-Deployment-Type': 'full' },
      body: JSON.stringify(flow),
    });
    expect(res.status, await res.text()).toBe(204);
  }

  /** How often node `id` did `what` so far (Node-RED's metric log); a node's input handler sends in its receive's turn. */
  count(id: string, what: 'receive' | 'send'): number {
    return this.output
      .split('\n')
      .filter((line) => line.includes('[metric]'))
      .map((line) => JSON.parse(line.slice(line.indexOf('{'))) as { nodeid: string; event: string })
      .filter((metric) => metric.nodeid === id && metric.event.endsWith(`.${what}`)).length;
  }

  /** Kills Node-RED by its pid and removes its folder. */
  async close(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null && this.child.pid !== undefined) process.kill(this.child.pid, 'SIGKILL');
    await this.exited;
    rmSync(this.dir, { recursive: true, force: true });
  }
}

describe('the Node-RED example flow with both services and Mosquitto', () => {
  let broker: Mosquitto;
  let dir: string;
  let deviceControl: ServiceProcess;
  let notifications: ServiceProcess;
  let ha: MqttRecorder;
  let red: NodeRed | undefined;

  beforeAll(async () => {
    broker = await Mosquitto.start();
    dir = mkdtempSync(join(tmpdir(), 'node-red-seam-'));
    [deviceControl, notifications] = await Promise.all([
      ServiceProcess.start({
        service: 'device-control',
        // The syncs that come every few minutes are asked for in a row here, so the gap between asked syncs is off.
        env: {
          CLOUD_BACKEND: 'simulator',
          CLOUD_TOKEN_FILE: join(dir, 'token.json'),
          CLOUD_SYNC_MIN_GAP_SECONDS: '0',
          MQTT_URL: broker.url,
          MQTT_RECONNECT_MIN_MS: '50',
        },
      }),
      ServiceProcess.start({
        service: 'notifications',
        env: { STORAGE_PATH: join(dir, 'notifications.yaml'), MQTT_URL: broker.url, MQTT_RECIPIENTS: 'alice,bob', MQTT_RECONNECT_MIN_MS: '50' },
      }),
    ]);
    ha = await MqttRecorder.connect(broker.url, ['homeops/#']);
  }, 90_000);

  afterAll(async () => {
    await red?.close();
    await ha?.close();
    await Promise.all([deviceControl?.stop(), notifications?.stop()]);
    await broker?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** alice's notifications as the history tells them. */
  async function aliceHears(): Promise<string[]> {
    const res = await fetch(`${notifications.baseUrl}/notifications/alice`);
    return ((await res.json()) as Array<{ message: string }>).map((n) => n.message);
  }

  it('notifies once when the plug is switched off, however often its state is published again', { timeout: 120_000 }, async () => {
    // A command published before the bridge subscribed, or before the plug is known, would be lost: wait for both.
    await ha.waitFor('homeops/device-control/availability', (m) => m.payload === 'online', 30_000);
    await ha.waitFor(PLUG.availability, (m) => m.payload === 'online', 30_000);
    await ha.publish(PLUG.channelSet(0), 'ON');
    await ha.waitFor(PLUG.channelState(0), (m) => m.payload === 'ON');
    red = await NodeRed.start({ HOMEOPS_MQTT_HOST: '127.0.0.1', HOMEOPS_MQTT_PORT: String(broker.port), HOMEOPS_API_KEY: 'unused' });
    await red.deploy(FLOW);
    // The retained ON reaches the filter when Node-RED subscribes; it is the initial value, not a change.
    await eventually(() => red!.count(FILTER, 'receive') === 1, { what: 'the retained state at the filter', timeoutMs: 30_000 });

    await ha.publish(PLUG.channelSet(0), 'OFF');
    await ha.publish(PLUG.channelSet(0), 'OFF');
    for (let i = 0; i < 3; i++) expect((await fetch(`${deviceControl.baseUrl}/devices/sync`, { method: 'POST' })).status).toBe(200);
    // Home Assistant's birth message makes the bridge publish every state again: a repeat the flow must filter.
    await ha.publish('homeassistant/status', 'online');

    // The filter saw the retained ON, the OFF and the OFF published again for Home Assistant: nothing from the syncs.
    await eventually(() => red!.count(FILTER, 'receive') >= 3, { what: 'OFF and its repeat at the filter', timeoutMs: 30_000 });
    await eventually(async () => (await aliceHears()).length === 1 || undefined, { what: "alice's notification", timeoutMs: 30_000 });
    expect(await aliceHears()).toEqual(['The plug was switched off']);
    expect(red.count(FILTER, 'send')).toBe(1);
    expect(red.count(FILTER, 'receive')).toBe(3);
  });
});
