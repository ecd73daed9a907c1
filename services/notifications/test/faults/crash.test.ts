import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually, ServiceProcess } from '@homeops/test-kit';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { pngOfSize } from '../support/files.js';

/** What the clients were told (2xx) and what they cannot know (the process died before answering). */
interface Ledger {
  created: Set<string>;
  /** Acknowledged creates that carried an attachment: its bytes must survive too. */
  withFile: Map<string, Buffer>;
  deleted: Set<string>;
  read: Set<string>;
  /** Deletes and reads in flight at the kill: either outcome is correct. */
  uncertain: Set<string>;
}

const RECIPIENTS = ['alice', 'bob', 'carol'];
const pick = <T>(items: T[]): T => items[Math.floor(Math.random() * items.length)]!;

async function call(base: string, method: string, path: string, body?: object): Promise<Response> {
  return fetch(`${base}${path}`, {
    method,
    signal: AbortSignal.timeout(5_000),
    ...(body ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) } : {}),
  });
}

/** One client: creates, deletes, marks read and reads until the process dies; records only acknowledged changes. */
async function drive(base: string, ledger: Ledger, alive: () => boolean): Promise<void> {
  while (alive()) {
    const roll = Math.random();
    const known = [...ledger.created].filter((id) => !ledger.deleted.has(id) && !ledger.uncertain.has(id));
    try {
      if (roll < 0.5 || known.length === 0) {
        const file = roll < 0.1 ? pngOfSize(200 + Math.floor(Math.random() * 5_000)) : undefined;
        const attachment = file ? { attachment: { filename: 'f.png', contentType: 'image/png', data: file.toString('base64') } } : {};
        const res = await call(base, 'POST', '/notifications', { recipient: pick(RECIPIENTS), message: `m-${Date.now()}`, ...attachment });
        if (res.status !== 201) throw new Error(`POST /notifications answered ${res.status}`);
        const { id } = (await res.json()) as { id: string };
        ledger.created.add(id);
        if (file) ledger.withFile.set(id, file);
      } else if (roll < 0.7) {
        const id = pick(known);
        ledger.uncertain.add(id);
        const res = await call(base, 'DELETE', `/notifications/${id}`);
        if (res.status === 204) ledger.deleted.add(id);
        if (res.status === 204 || res.status === 404) ledger.uncertain.delete(id);
      } else if (roll < 0.85) {
        const id = pick(known);
        ledger.uncertain.add(id);
        const res = await call(base, 'PATCH', `/notifications/${id}/read`);
        if (res.status === 200) ledger.read.add(id);
        if (res.status === 200 || res.status === 404) ledger.uncertain.delete(id);
      } else {
        const res = await call(base, 'GET', `/notifications/${pick(RECIPIENTS)}?limit=20`);
        await res.arrayBuffer();
      }
    } catch (error) {
      if (alive()) throw error;
      return; // the kill cut this request: its outcome stays unknown
    }
  }
}

/** Checks the restarted service against the ledger; returns the problems found. */
async function audit(service: ServiceProcess, ledger: Ledger): Promise<string[]> {
  const problems: string[] = [];
  for (const id of ledger.created) {
    if (ledger.uncertain.has(id)) continue;
    const res = await call(service.baseUrl, 'GET', `/notifications/single/${id}`);
    const body = (await res.json()) as { read?: boolean };
    if (ledger.deleted.has(id)) {
      if (res.status !== 404) problems.push(`deleted ${id} is back (${res.status})`);
    } else if (res.status !== 200) {
      problems.push(`created ${id} is missing (${res.status})`);
    } else if (ledger.read.has(id) && body.read !== true) {
      problems.push(`read ${id} is unread again`);
    } else if (ledger.withFile.has(id)) {
      const file = await call(service.baseUrl, 'GET', `/notifications/single/${id}/attachment`);
      const bytes = Buffer.from(await file.arrayBuffer());
      if (file.status !== 200 || !bytes.equals(ledger.withFile.get(id)!))
        problems.push(`attachment of ${id} is lost or damaged (${file.status}, ${bytes.length} bytes)`);
    }
  }
  return problems;
}

describe('notifications service under kill -9 (child process, real YAML history)', () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  it('loses no acknowledged create, delete or read across 5 kills at random moments', { timeout: 90_000 }, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'notifications-crash-'));
    dirs.push(dir);
    const env = { STORAGE_PATH: join(dir, 'notifications.yaml') };
    const ledger: Ledger = { created: new Set(), withFile: new Map(), deleted: new Set(), read: new Set(), uncertain: new Set() };

    const start = () => ServiceProcess.start({ service: 'notifications', env });
    for (let round = 0; round < 5; round++) {
      const service = await start();
      expect(await audit(service, ledger), `after restart ${round}`).toEqual([]);
      let alive = true;
      const clients = Array.from({ length: 8 }, () => drive(service.baseUrl, ledger, () => alive));
      // A random moment, counted in acknowledged creates rather than in milliseconds.
      const killAt = ledger.created.size + 10 + Math.floor(Math.random() * 150);
      await eventually(() => ledger.created.size >= killAt, { what: `${killAt} acknowledged creates`, timeoutMs: 30_000 });
      alive = false;
      await service.kill();
      await Promise.all(clients);
    }

    const last = await start();
    expect(await audit(last, ledger), 'after the last restart').toEqual([]);
    expect(ledger.created.size).toBeGreaterThan(20);
    expect(ledger.deleted.size).toBeGreaterThan(0);
    expect(ledger.withFile.size).toBeGreaterThan(0);
    expect((await last.stop()).code, last.output).toBe(0);
    // A graceful stop folds the journal into the YAML file: it parses and holds every acknowledged survivor.
    const document = JSON.stringify(parse(await readFile(env.STORAGE_PATH, 'utf8')));
    const survivors = [...ledger.created].filter((id) => !ledger.deleted.has(id) && !ledger.uncertain.has(id));
    expect(survivors.filter((id) => !document.includes(id))).toEqual([]);
  });
});
