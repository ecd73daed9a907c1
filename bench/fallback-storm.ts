// Issue 35, item 3: an alert storm while Pushover answers every message 429 (the month's quota spent) and the
// recipient has an ntfy fallback. 1,000 alerts at once (ten Alertmanager calls of 100) to one service with delivery
// on: each Pushover attempt ends `quota` and the alert goes to the fake ntfy. Measures how long until every alert
// reached ntfy, ntfy publishes per second, and that none reached it twice.
// Writes bench/results/fallback-storm.json. Usage: npx tsx --conditions=source bench/fallback-storm.ts   (BENCH_SKIP_BUILD=1)
import { readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { startFakeNtfy } from '../services/notifications/test/fallback/fake-ntfy.js';
import { startFakePushover } from '../services/notifications/test/faults/fake-pushover.js';
import { machineOf, runBench } from './ab-report.js';
import { installCleanupHandlers, makeTempDir, removeTempDir, stopChild } from './processes.js';
import { buildServices, ROOT, startNotifications } from './services.js';

const STORM_ALERTS = 1_000;
const STORM_CALLS = 10;
const TOKEN = 'bEnChToKeN00000000000000000001';
const OPS = 'bEnChOpS0000000000000000000001';

const firing = JSON.parse(readFileSync(join(ROOT, 'services/notifications/test/fixtures/hooks/alertmanager-firing.json'), 'utf8')) as {
  alerts: Array<Record<string, unknown> & { labels: Record<string, string>; fingerprint: string }>;
};
const alert = firing.alerts[0]!;

async function storm(dir: string) {
  // Key validations pass; every message is refused for the month's quota.
  const pushover = await startFakePushover((form) =>
    form.fields.message === undefined
      ? { status: 200, body: { status: 1, devices: [] } }
      : { status: 429, body: { status: 0, errors: ['application has exceeded its monthly message limit'] } },
  );
  const ntfy = await startFakeNtfy();
  const recipients = join(dir, 'recipients.yaml');
  writeFileSync(recipients, `recipients:\n  ops:\n    key: ${OPS}\n    fallback: ${ntfy.url.replace(/^http/, 'ntfy+http')}/ops-alarms\n`);
  const service = await startNotifications(join(dir, 'storm.yaml'), dir, undefined, {
    METRICS: 'off',
    PROVIDER_API_TOKEN: TOKEN,
    PROVIDER_API_URL: pushover.url,
    RECIPIENTS_FILE: recipients,
  });
  const base = `http://127.0.0.1:${service.port}`;
  try {
    const batch = (call: number) => ({
      ...firing,
      alerts: Array.from({ length: STORM_ALERTS / STORM_CALLS }, (_, i) => ({
        ...alert,
        labels: { ...alert.labels, severity: 'warning', device: `sd${call}-${i}` },
        // A text of its own per alert, so that ntfy can tell a second send of one alert from another alert.
        annotations: { ...(alert.annotations as Record<string, string>), summary: `disk sd${call}-${i} failing`, description: `disk sd${call}-${i} failing` },
        fingerprint: `${call.toString(16)}-${i.toString(16)}`,
      })),
    });
    const started = performance.now();
    const statuses = await Promise.all(
      Array.from({ length: STORM_CALLS }, async (_, call) => {
        const res = await fetch(`${base}/hooks/alertmanager?recipient=ops`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(batch(call)),
        });
        await res.arrayBuffer();
        return res.status;
      }),
    );
    const deadline = Date.now() + 180_000;
    while (ntfy.published.length < STORM_ALERTS && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    const seconds = (performance.now() - started) / 1000;
    // Anything late (a second send) would arrive after the last one: wait a little and count again.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const published = ntfy.published.length;
    const distinct = new Set(ntfy.published.map((p) => `${p.title}\n${p.body}`)).size;
    if (published < STORM_ALERTS) throw new Error(`only ${published} of ${STORM_ALERTS} alerts reached ntfy in 3 minutes`);
    return {
      alerts: STORM_ALERTS,
      calls: STORM_CALLS,
      webhookStatuses: statuses,
      pushoverMessageRequests: pushover.exchanges.filter((e) => e.form.fields.message !== undefined).length,
      ntfyPublished: published,
      ntfyDistinct: distinct,
      secondsUntilAllOnNtfy: Number(seconds.toFixed(2)),
      ntfyPerSecond: Number((published / seconds).toFixed(1)),
      priorities: [...new Set(ntfy.published.map((p) => p.priority))],
    };
  } finally {
    await stopChild(service.child);
    await pushover.close();
    await ntfy.close();
  }
}

async function main(): Promise<void> {
  installCleanupHandlers();
  if (process.env.BENCH_SKIP_BUILD !== '1') await buildServices();
  const startedAt = new Date().toISOString();
  const load = loadavg()[0]!;
  const dir = makeTempDir('fallback-storm');
  try {
    const result = await storm(dir);
    const report = { command: 'npx tsx --conditions=source bench/fallback-storm.ts', startedAt, machine: machineOf(load), storm: result };
    writeFileSync(join(ROOT, 'bench/results/fallback-storm.json'), `${JSON.stringify(report, null, 2)}\n`);
    console.log(
      `fallback storm: ${result.ntfyPublished} of ${result.alerts} alerts on ntfy (${result.ntfyDistinct} distinct) in ` +
        `${result.secondsUntilAllOnNtfy} s = ${result.ntfyPerSecond}/s; Pushover asked ${result.pushoverMessageRequests} times`,
    );
  } finally {
    removeTempDir(dir);
  }
}

runBench(main);
