import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, freePort, ServiceProcess, StopWaiting } from '../../packages/test-kit/src/index.js';

// A real Prometheus (Debian's `prometheus` package; .ci/run installs it) scrapes both services every second.
const ROOT = join(import.meta.dirname, '../..');
const KEY = randomBytes(24).toString('base64url');
const TOGGLES = 5;
const CREATES = 4;

let dir: string;
let deviceControl: ServiceProcess;
let notifications: ServiceProcess;
let prometheus: ChildProcess;
let prometheusUrl: string;
let prometheusOutput = '';

const auth = { authorization: `Bearer ${KEY}` };

function prometheusConfig(keyFile: string): string {
  const job = (name: string, port: number) => `
  - job_name: ${name}
    authorization:
      credentials_file: ${keyFile}
    static_configs:
      - targets: ['127.0.0.1:${port}']`;
  return `global:
  scrape_interval: 1s
  scrape_timeout: 1s
  evaluation_interval: 1s
scrape_configs:${job('device-control', deviceControl.port)}${job('notifications', notifications.port)}
`;
}

/** The samples of an instant query: [labels, value] pairs. */
async function query(expr: string): Promise<Array<{ metric: Record<string, string>; value: number }>> {
  const res = await fetch(`${prometheusUrl}/api/v1/query?query=${encodeURIComponent(expr)}`);
  const body = (await res.json()) as { status: string; data: { result: Array<{ metric: Record<string, string>; value: [number, string] }> } };
  if (body.status !== 'success') throw new Error(`query ${expr}: ${JSON.stringify(body)}`);
  return body.data.result.map((r) => ({ metric: r.metric, value: Number(r.value[1]) }));
}

/** One number from a query that sums to a single sample (0 when it has none). */
async function scalar(expr: string): Promise<number> {
  return (await query(`sum(${expr}) or vector(0)`))[0]?.value ?? 0;
}

/** Waits until Prometheus holds a scrape of both services taken after `since` (ms since the epoch). */
async function scrapedAfter(since: number): Promise<void> {
  await eventually(
    async () => {
      if (prometheus.exitCode !== null) throw new StopWaiting(`prometheus exited: ${prometheusOutput.slice(-2000)}`);
      // timestamp() of the selector itself: of an expression it would be the evaluation's time.
      const [ups, times] = await Promise.all([query('up'), query('timestamp(up)')]);
      return ups.length === 2 && ups.every((u) => u.value === 1) && times.length === 2 && times.every((t) => t.value * 1000 > since);
    },
    { what: 'a scrape of both services after the actions', timeoutMs: 20_000, intervalMs: 200 },
  );
}

function promtool(args: string[], input?: string): { status: number | null; output: string } {
  const result = spawnSync('promtool', args, { input, encoding: 'utf8' });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

beforeAll(async () => {
  for (const tool of ['prometheus', 'promtool']) {
    if (spawnSync('which', [tool]).status !== 0) throw new Error(`${tool} is missing: apt-get install -y prometheus (as root; .ci/run does it)`);
  }
  dir = mkdtempSync(join(tmpdir(), 'prometheus-'));
  [deviceControl, notifications] = await Promise.all([
    ServiceProcess.start({ service: 'device-control', env: { CLOUD_BACKEND: 'simulator', API_KEY: KEY, CLOUD_TOKEN_FILE: join(dir, 'dc', 'token.json') } }),
    ServiceProcess.start({ service: 'notifications', env: { API_KEY: KEY, STORAGE_PATH: join(dir, 'notifications', 'notifications.yaml') } }),
  ]);
  const keyFile = join(dir, 'api-key');
  writeFileSync(keyFile, KEY, { mode: 0o600 });
  writeFileSync(join(dir, 'prometheus.yml'), prometheusConfig(keyFile));
  const port = await freePort();
  prometheusUrl = `http://127.0.0.1:${port}`;
  prometheus = spawn(
    'prometheus',
    [`--config.file=${join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`, '--log.level=warn'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  prometheus.stdout?.on('data', (chunk: Buffer) => (prometheusOutput += chunk.toString('utf8')));
  prometheus.stderr?.on('data', (chunk: Buffer) => (prometheusOutput += chunk.toString('utf8')));
  await eventually(
    async () => {
      if (prometheus.exitCode !== null) throw new StopWaiting(`prometheus exited: ${prometheusOutput.slice(-2000)}`);
      return (await fetch(`${prometheusUrl}/-/ready`).catch(() => null))?.ok;
    },
    { what: 'Prometheus to be ready', timeoutMs: 30_000, intervalMs: 100 },
  );
}, 90_000);

afterAll(async () => {
  if (prometheus && prometheus.exitCode === null) {
    const exited = new Promise((done) => prometheus.once('exit', done));
    process.kill(prometheus.pid!, 'SIGTERM');
    await exited;
  }
  await Promise.all([deviceControl?.stop(), notifications?.stop()]);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('Prometheus scraping both services', () => {
  it('finds both expositions valid with promtool check metrics', async () => {
    for (const service of [deviceControl, notifications]) {
      const text = await (await fetch(`${service.baseUrl}/metrics`, { headers: auth })).text();

      const check = promtool(['check', 'metrics'], text);

      expect(check.output).toBe('');
      expect(check.status).toBe(0);
    }
  });

  it('finds the example alert rules valid with promtool check rules', () => {
    const check = promtool(['check', 'rules', join(ROOT, 'docs/prometheus/alerts.yml')]);

    expect(check.output).toContain('SUCCESS');
    expect(check.status).toBe(0);
  });

  it('runs every query of the Grafana dashboard, and the dashboard and the alerts name only metrics the services expose', async () => {
    const dashboard = JSON.parse(readFileSync(join(ROOT, 'docs/grafana/homeops.json'), 'utf8')) as { panels: Array<{ targets?: Array<{ expr: string }> }> };
    const exprs = dashboard.panels.flatMap((panel) => panel.targets ?? []).map((target) => target.expr.replaceAll('$job', '.*'));
    const families = new Set<string>();
    for (const service of [deviceControl, notifications]) {
      const text = await (await fetch(`${service.baseUrl}/metrics`, { headers: auth })).text();
      for (const match of text.matchAll(/^# TYPE (\S+) /gm)) families.add(match[1]!);
    }
    // Only on PostgreSQL.
    families.add('homeops_pg_pool_connections');

    for (const expr of exprs) await query(expr);
    const named = [
      ...`${exprs.join('\n')}\n${readFileSync(join(ROOT, 'docs/prometheus/alerts.yml'), 'utf8')}`.matchAll(/\b(?:homeops|http|process|nodejs)_\w+/g),
    ];
    const unknown = named.map((m) => m[0].replace(/_(bucket|count|sum)$/, '')).filter((name) => !families.has(name));

    expect(exprs.length).toBeGreaterThan(20);
    expect([...new Set(unknown)]).toEqual([]);
  });

  it('returns 401 with the error body to a scrape without the key', async () => {
    for (const service of [deviceControl, notifications]) {
      const res = await fetch(`${service.baseUrl}/metrics`);

      expect(res.status).toBe(401);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(await res.json()).toMatchObject({ code: 'UNAUTHORIZED', error: expect.any(String), solution: expect.any(String) });
    }
  });

  it(`sees the toggle and create counters move by exactly ${TOGGLES} and ${CREATES}`, { timeout: 60_000 }, async () => {
    await scrapedAfter(Date.now());
    const before = {
      toggles: await scalar('homeops_device_toggles_total{result="ok"}'),
      toggleRequests: await scalar('http_requests_total{job="device-control",route="/devices/:uuid/toggle",status="200"}'),
      created: await scalar('homeops_notifications_created_total'),
      skipped: await scalar('homeops_deliveries_total{status="skipped"}'),
    };
    const devices = (await (await fetch(`${deviceControl.baseUrl}/devices`, { headers: auth })).json()) as Array<{ uuid: string; capabilities?: string[] }>;
    const plug = devices.find((d) => d.capabilities?.includes('switch')) ?? devices[0]!;

    for (let i = 0; i < TOGGLES; i++) {
      const res = await fetch(`${deviceControl.baseUrl}/devices/${plug.uuid}/toggle`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: '{}',
      });
      expect(res.status).toBe(200);
    }
    for (let i = 0; i < CREATES; i++) {
      const res = await fetch(`${notifications.baseUrl}/notifications`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ recipient: 'ops', title: `Scraped ${i}`, message: 'counted by Prometheus' }),
      });
      expect(res.status).toBe(201);
    }
    await scrapedAfter(Date.now());

    expect(await scalar('homeops_device_toggles_total{result="ok"}')).toBe(before.toggles + TOGGLES);
    expect(await scalar('http_requests_total{job="device-control",route="/devices/:uuid/toggle",status="200"}')).toBe(before.toggleRequests + TOGGLES);
    expect(await scalar('homeops_notifications_created_total')).toBe(before.created + CREATES);
    expect(await scalar('homeops_deliveries_total{status="skipped"}')).toBe(before.skipped + CREATES);
    expect(await scalar('homeops_cloud_session_state{state="connected"}')).toBe(1);
    expect(await scalar('homeops_history_notifications')).toBe(before.created + CREATES);
  });
});
