import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anyJsonField, eventually, hostileBody, Mosquitto, MqttRecorder, ServiceProcess } from '../../packages/test-kit/src/index.js';
import { deviceTopics } from '../../services/device-control/src/adapters/mqtt/device-entities.js';
import { ADAPTER_FAMILIES } from '../../services/device-control/src/families/adapters.js';
import { recipientEntities } from '../../services/notifications/src/adapters/mqtt/recipient-entities.js';

// Random payloads into every topic either bridge subscribes to, both services running as `pnpm start` runs them on one
// real Mosquitto: each stays up, answers /health, still acts on a good message, and its memory stays bounded.
const DC_BASE = 'homeops/device-control';
const NOTIFY_BASE = 'homeops/notifications';
const MiB = 1024 * 1024;

/** Every topic the bridges listen to, with real devices and recipients (and one unknown of each) in the wildcards. */
function subscribedTopics(): string[] {
  const devices = ['sim-strip-0001', 'sim-garage-0001', 'sim-cover-0001', 'sim-bulb-0001', 'sim-hub-0001', 'sim-nope-9999'];
  const commands = devices.flatMap((uuid) =>
    ADAPTER_FAMILIES.flatMap(({ mqtt }) => mqtt?.commands ?? []).map(
      (command) => `${deviceTopics(DC_BASE, uuid).availability.replace(/\/availability$/, '')}/${command.suffix.replace(/\+/g, '0')}`,
    ),
  );
  const recipients = recipientEntities(NOTIFY_BASE, ['alice', 'bob', 'mallory']).flatMap((entity) => [
    entity.topics.notify,
    `${NOTIFY_BASE}/recipients/${entity.slug}/mark-all-read`,
  ]);
  const homeAssistant = [
    'homeassistant/status',
    'homeassistant/device/homeops_device_control_sim_strip_0001/config',
    'homeassistant/device/someone_else/config',
  ];
  return [...commands, ...recipients, ...homeAssistant];
}

const deepArray = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
const wideObject = (keys: number) => JSON.stringify(Object.fromEntries(Array.from({ length: keys }, (_, i) => [`k${i}`, i])));

/** Payloads: hostile JSON (deep, wide, arrays, __proto__, toString), the services' own shapes with wrong fields, huge strings, bytes, oversize. */
const payload: fc.Arbitrary<string | Buffer> = fc.oneof(
  hostileBody(fc.constant('{"state":"ON"}'), ['ON', 'OFF', 'OPEN', 'HEAT', 'online']).map((body) => body ?? ''),
  fc.record({ title: anyJsonField, message: anyJsonField, priority: anyJsonField, recipient: anyJsonField }).map((body) => JSON.stringify(body)),
  fc.record({ state: anyJsonField, brightness: anyJsonField, color_temp: anyJsonField, color: anyJsonField }).map((body) => JSON.stringify(body)),
  fc.constantFrom(
    deepArray(100_000),
    `{"message":${deepArray(10_000)}}`,
    wideObject(50_000),
    '{"__proto__":{"toString":1},"message":"x"}',
    '{"toString":1,"valueOf":1,"message":{"toString":1}}',
    '{"constructor":{"prototype":{"polluted":true}},"message":"x"}',
  ),
  fc.integer({ min: 64 * 1024, max: 3 * MiB }).map((length) => JSON.stringify({ message: 'x'.repeat(length) })),
  fc.integer({ min: 64 * 1024, max: 3 * MiB }).map((length) => 'y'.repeat(length)),
  fc.uint8Array({ minLength: 1, maxLength: 4096 }).map((bytes) => Buffer.from(bytes)),
  // Over both bridges' packet limits (device-control 1 MiB, notifications 7 MiB + its topic).
  fc.constant(Buffer.alloc(8 * MiB, '{')),
);

/** A process's resident memory and its peak since the last reset, in bytes (/proc/<pid>/status). */
function memoryOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? Number.NaN) * 1024;
  return { rss: kib('VmRSS'), peak: kib('VmHWM') };
}

/**
 * How far above its resident memory at the start each service's peak went while `work` ran (and a second after):
 * the kernel's peak is reset first (clear_refs 5), so a short spike between two looks still counts.
 */
async function peakGrowth(services: ServiceProcess[], work: () => Promise<void>): Promise<number[]> {
  const pids = services.map((s) => s.child.pid!);
  for (const pid of pids) writeFileSync(`/proc/${pid}/clear_refs`, '5');
  const base = pids.map((pid) => memoryOf(pid).rss);
  await work();
  // Messages still on their way are handled within a second of the last publish acknowledged.
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  return pids.map((pid, i) => memoryOf(pid).peak - base[i]!);
}

describe('every MQTT topic the bridges subscribe to, with random payloads', () => {
  let broker: Mosquitto;
  let dir: string;
  let deviceControl: ServiceProcess;
  let notifications: ServiceProcess;
  let client: MqttRecorder;

  beforeAll(async () => {
    broker = await Mosquitto.start();
    dir = mkdtempSync(join(tmpdir(), 'mqtt-seam-'));
    [deviceControl, notifications] = await Promise.all([
      ServiceProcess.start({ service: 'device-control', env: { CLOUD_BACKEND: 'simulator', CLOUD_TOKEN_FILE: join(dir, 'token.json'), MQTT_URL: broker.url } }),
      ServiceProcess.start({
        service: 'notifications',
        env: { STORAGE_PATH: join(dir, 'notifications.yaml'), MQTT_URL: broker.url, MQTT_RECIPIENTS: 'alice,bob' },
      }),
    ]);
    // The test's own client takes no large message back either: the broker drops them for it.
    client = await MqttRecorder.connect(broker.url, ['homeops/#'], { protocolVersion: 5, properties: { maximumPacketSize: 64 * 1024 } });
    await client.waitFor(`${DC_BASE}/availability`, (m) => m.payload === 'online');
    await client.waitFor(`${NOTIFY_BASE}/availability`, (m) => m.payload === 'online');
  }, 90_000);

  afterAll(async () => {
    await client?.close();
    await Promise.all([deviceControl?.stop(), notifications?.stop()]);
    await broker?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Both services answer /health and their bridges are still connected. */
  async function assertServing(): Promise<void> {
    for (const service of [deviceControl, notifications]) {
      expect(service.running, service.output.slice(-2000)).toBe(true);
      const res = await fetch(`${service.baseUrl}/health`, { signal: AbortSignal.timeout(5_000) });
      expect((await res.json()) as { mqtt: { state: string } }).toMatchObject({ mqtt: { state: 'connected' } });
    }
  }

  /** A good command and a good notification still work after the storm. */
  async function assertStillActing(tag: string): Promise<void> {
    const strip = deviceTopics(DC_BASE, 'sim-strip-0001');
    await client.publish(strip.channelSet(3), 'OFF');
    await client.publish(strip.channelSet(3), 'ON');
    await client.waitFor(strip.channelState(3), (m) => m.payload === 'ON', 20_000);
    await client.publish(`${NOTIFY_BASE}/recipients/alice/notify`, `still here ${tag}`);
    await eventually(
      async () => {
        const list = (await (await fetch(`${notifications.baseUrl}/notifications/alice?limit=5`)).json()) as Array<{ message: string }>;
        return list.some((n) => n.message === `still here ${tag}`) || undefined;
      },
      { what: `the notification "still here ${tag}"`, timeoutMs: 20_000 },
    );
  }

  it('keeps both services up, answering and acting, with memory bounded', { timeout: 240_000 }, async () => {
    const topics = subscribedTopics();
    const growth = await peakGrowth([deviceControl, notifications], async () => {
      await fc.assert(
        fc.asyncProperty(fc.constantFrom(...topics), payload, fc.boolean(), async (topic, body, retain) => {
          // Retained junk only where the bridges read retained messages (discovery configs); nowhere it would replay.
          await client.publish(topic, body, retain && topic.startsWith('homeassistant/device/'));
        }),
        { numRuns: 150, interruptAfterTimeLimit: 120_000 },
      );
      // Every topic at least once with the worst of each kind.
      for (const topic of topics) {
        const oversize = Buffer.alloc(topic.startsWith(DC_BASE) ? MiB + 1 : 8 * MiB, 'x');
        for (const body of [deepArray(100_000), '{"toString":1}', oversize]) await client.publish(topic, body);
      }
    });

    await assertServing();
    await assertStillActing('after random payloads');
    expect(growth[0], 'device-control peak RSS growth').toBeLessThan(100 * MiB);
    expect(growth[1], 'notifications peak RSS growth').toBeLessThan(100 * MiB);
  });

  it('refuses 64 MB messages on a command topic and a notify topic without holding them (peak RSS under +32 MB)', { timeout: 120_000 }, async () => {
    const huge = Buffer.alloc(64 * MiB, 'O');
    const growth = await peakGrowth([deviceControl, notifications], async () => {
      await client.publish(deviceTopics(DC_BASE, 'sim-strip-0001').channelSet(1), huge);
      await client.publish(`${NOTIFY_BASE}/recipients/alice/notify`, huge);
    });

    await assertServing();
    await assertStillActing('after 64 MB');
    // Under half of one payload: neither service held the message (without the limits: +97 MB and +56 MB, measured).
    expect(growth[0], 'device-control peak RSS growth').toBeLessThan(32 * MiB);
    expect(growth[1], 'notifications peak RSS growth').toBeLessThan(32 * MiB);
  });
});
