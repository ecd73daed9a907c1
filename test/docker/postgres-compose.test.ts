import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { get } from 'node:http';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../bench/processes.js';
import { PNG } from '../../services/notifications/test/support/files.js';
import { readSince, UNREAD, type NotificationRecord } from '../../services/notifications/src/domain/notification.js';
import { YamlNotificationRepository } from '../../services/notifications/src/adapters/storage/yaml-notification.repository.js';
import { composeProject } from './compose-project.js';
import { eventually } from '../../packages/test-kit/src/index.js';
import { docker, generatedApiKey, mainProcessPrivileges, waitHealthy } from './docker-cli.js';
import { bearer } from './notifications-client.js';

const root = resolve(import.meta.dirname, '../..');
const file = join(root, 'docker-compose.postgres.yml');
// A fresh host: a project folder with only the .env docs/postgres.md asks for (the file has no password default);
// Docker creates ./data/... for the bind mounts.
const project = composeProject(file, 'homeops-compose-pg-', [], { POSTGRES_PASSWORD: randomBytes(18).toString('base64url') });
const { projectDir, compose, run, network, containers } = project;
const bases: Record<string, string> = {};
/** The key the first instance generated in the shared data folder (compose sets HOST=0.0.0.0 and no API_KEY). */
let key = '';

async function call(base: string, method: string, path: string, body?: object) {
  const res = await fetch(`${base}${path}`, {
    method,
    signal: AbortSignal.timeout(15_000),
    headers: { ...bearer(key), ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, body: (await res.json().catch(() => undefined)) as Record<string, unknown> | undefined };
}

/** The first `event: created` on a stream of `base`, or a rejection after `ms`. */
function firstCreatedEvent(base: string, recipient: string, ms: number): { ready: Promise<void>; event: Promise<string> } {
  let markReady!: () => void;
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  const event = new Promise<string>((resolve, reject) => {
    const req = get(`${base}/notifications/${recipient}/stream`, { headers: bearer(key) }, (res) => {
      markReady();
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
        const match = /event: created\ndata: (.*)\n/.exec(text);
        if (match) {
          req.destroy();
          resolve(match[1]!);
        }
      });
    });
    req.on('error', () => undefined);
    setTimeout(() => {
      req.destroy();
      reject(new Error(`no created event within ${ms} ms`));
    }, ms).unref();
  });
  return { ready, event };
}

beforeAll(async () => {
  execFileSync(join(root, 'node_modules/.bin/dclint'), ['--max-warnings', '0', '--color', 'false', file], { stdio: 'pipe' });
  await docker(['network', 'create', network]);
  for (const service of compose.startOrder()) {
    if (compose.services[service]!.build) await docker(compose.buildArgs(service), 900_000);
    const container = `${compose.project}-${service}-${run}`;
    const port = await freePort();
    await docker(compose.runArgs(service, container, () => port, { network }));
    containers[service] = container;
    bases[service] = `http://127.0.0.1:${port}`;
    // depends_on: service_healthy, as Compose waits before starting the next.
    await waitHealthy(container, 120_000);
  }
  key = await generatedApiKey(containers['notifications-1']!);
}, 1_800_000);

afterAll(() => project.remove(), 120_000);

describe.sequential('docker-compose.postgres.yml on a real Docker engine: two instances, one PostgreSQL', () => {
  it('starts PostgreSQL, then both instances healthy on the shared database, locked down, with one generated key', async () => {
    for (const name of ['notifications-1', 'notifications-2']) {
      const health = await call(bases[name]!, 'GET', '/health');
      const anonymous = await fetch(`${bases[name]}/notifications/household`);
      expect(health.status).toBe(200);
      expect(health.body?.storage).toMatchObject({ engine: 'postgres', path: 'postgres://postgres:5432/notifications', writable: true });
      expect({ status: anonymous.status, body: await anonymous.json() }).toEqual({
        status: 401,
        body: { error: expect.any(String), solution: expect.any(String), code: 'UNAUTHORIZED' },
      });
      expect(await generatedApiKey(containers[name]!)).toBe(key);
      expect(await mainProcessPrivileges(containers[name]!)).toMatchObject({ uid: 1000, noNewPrivs: 1, capEff: '0000000000000000' });
    }
    expect(key).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('shows what one instance stored on the other, and carries its stream events across', async () => {
    const one = bases['notifications-1']!;
    const two = bases['notifications-2']!;
    const stream = firstCreatedEvent(two, 'household', 15_000);
    await stream.ready;
    const created = await call(one, 'POST', '/notifications', { recipient: 'household', message: 'made on instance 1' });
    expect(created.status).toBe(201);
    const listed = await call(two, 'GET', '/notifications/household');
    expect((listed.body as unknown as Array<{ id: string }>).map((n) => n.id)).toEqual([created.body?.id]);
    expect(JSON.parse(await stream.event)).toMatchObject({ id: created.body?.id, message: 'made on instance 1' });
  });

  it('serves an attachment uploaded through one instance from the other (shared folder)', async () => {
    const created = await call(bases['notifications-1']!, 'POST', '/notifications', {
      recipient: 'household',
      message: 'with a picture',
      attachment: { filename: 'door.png', contentType: 'image/png', data: PNG.toString('base64') },
    });
    expect(created.status).toBe(201);
    const res = await fetch(`${bases['notifications-2']}/notifications/single/${String(created.body?.id)}/attachment`, { headers: bearer(key) });
    expect(res.status).toBe(200);
    expect(Buffer.from(await res.arrayBuffer()).equals(PNG)).toBe(true);
  });

  it('imports a YAML history with `docker compose run … node dist/import-history.js`, and both instances list it', async () => {
    const shared = join(projectDir, 'data/notifications-shared');
    const yaml = new YamlNotificationRepository(join(shared, 'notifications.yaml'));
    await yaml.open();
    const records = Array.from({ length: 300 }, (_, i): NotificationRecord => ({
      id: `01JIMPORT${String(i).padStart(17, '0')}`,
      recipient: 'imported',
      title: 'Backup',
      message: `night ${i}`,
      priority: 0,
      ...(i % 3 === 0 ? readSince('2026-01-02T00:00:00.000Z') : UNREAD),
      createdAt: new Date(Date.parse('2026-01-01T00:00:00.000Z') + i * 1000).toISOString(),
      delivery: { status: 'sent', attempts: 1 },
    }));
    await Promise.all(records.map((record) => yaml.insert(record)));
    await yaml.close();

    const output = await docker(
      compose.runArgs('notifications-1', `${compose.project}-import-${run}`, () => 0, {
        network,
        environment: { STORAGE_PATH: '/app/data/notifications.yaml' },
        oneOff: ['node', 'dist/import-history.js'],
      }),
      120_000,
    );

    expect(output).toContain('copied 300, already there 0, of 300');
    for (const base of [bases['notifications-1']!, bases['notifications-2']!]) {
      const res = await fetch(`${base}/notifications/imported?limit=5`, { headers: bearer(key) });
      expect(res.headers.get('x-total-count')).toBe('300');
      expect(res.headers.get('x-unread-count')).toBe('200');
      expect(((await res.json()) as Array<{ message: string }>).map((n) => n.message)).toEqual([
        'night 299',
        'night 298',
        'night 297',
        'night 296',
        'night 295',
      ]);
    }
  });

  it('answers 503 while PostgreSQL is stopped and serves again once it is back, without restarting the instances', async () => {
    const one = bases['notifications-1']!;
    await docker(['stop', containers.postgres!], 60_000);
    const down = await call(one, 'POST', '/notifications', { recipient: 'household', message: 'while down' });
    expect(down.status).toBe(503);
    expect(down.body).toEqual(expect.objectContaining({ error: expect.any(String), solution: expect.any(String), code: expect.any(String) }));
    await docker(['start', containers.postgres!], 60_000);
    await waitHealthy(containers.postgres!, 120_000);
    // The pool reconnects by itself: the first create that succeeds is the one the history keeps.
    await eventually(async () => (await call(one, 'POST', '/notifications', { recipient: 'household', message: 'after' })).status === 201, {
      what: 'a create once PostgreSQL is back',
      timeoutMs: 30_000,
      intervalMs: 500,
    });
    for (const name of ['notifications-1', 'notifications-2']) {
      expect(await docker(['inspect', '-f', '{{.RestartCount}} {{.State.Status}}', containers[name]!])).toBe('0 running');
    }
    expect((await call(bases['notifications-2']!, 'GET', '/notifications/household')).body).toHaveLength(3);
  });
});
