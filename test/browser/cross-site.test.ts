import { request } from 'node:http';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  autoSubmittedForm,
  imagePage,
  sandboxed,
  scriptPage,
  startAttackerSite,
  watchRequests,
  type AttackerSite,
  type RequestOnTheWire,
} from './attacker-site.js';
import { ATTACKER_HOST, LAN_HOST, launchLanBrowser, startAll, startLanService, watchTrouble } from './lan-browser.js';
import type { ServiceProcess } from '../../packages/test-kit/src/index.js';

// A household member's browser opens a hostile page on another site while both services run at home (under
// LAN_HOST, the name their dashboards use). Whatever the page sends must change nothing in the house. The same browser
// and services show each service's /docs (last in this file), which reads and changes nothing.
const GARAGE = 'sim-garage-0001';
const LAMP = 'sim-plug-0001';

let lan: Awaited<ReturnType<typeof launchLanBrowser>>;
let devices: ServiceProcess;
let notifications: ServiceProcess;
let attacker: AttackerSite;
const deviceUrl = (path: string) => `http://${LAN_HOST}:${devices.port}${path}`;
const notificationUrl = (path: string) => `http://${LAN_HOST}:${notifications.port}${path}`;
// The issue's page: the keyless service on loopback, where Chromium sends Fetch Metadata.
const loopbackPing = () => `http://127.0.0.1:${notifications.port}/heartbeats/nightly-backup/ping`;

beforeAll(async () => {
  await startAll([
    () => launchLanBrowser().then((browser) => (lan = browser)),
    () => startLanService('device-control', { CLOUD_BACKEND: 'simulator' }).then((service) => (devices = service)),
    () => startLanService('notifications', { STORAGE_PATH: 'data/notifications.yaml' }).then((service) => (notifications = service)),
  ]);
  attacker = await startAttackerSite({
    '/garage': autoSubmittedForm(deviceUrl(`/devices/${GARAGE}/garage-door/0/open`), 'application/x-www-form-urlencoded'),
    '/garage-sandboxed': sandboxed(autoSubmittedForm(deviceUrl(`/devices/${GARAGE}/garage-door/0/open`), 'application/x-www-form-urlencoded')),
    '/emergency': autoSubmittedForm(notificationUrl('/notifications'), 'multipart/form-data', {
      recipient: 'intruded',
      title: 'Fire',
      message: 'Leave the house now',
      priority: '2',
    }),
    '/read-all-form': autoSubmittedForm(notificationUrl('/notifications/frank/read-all'), 'text/plain', { x: 'y' }),
    '/read-all-fetch': scriptPage(
      `fetch(${JSON.stringify(notificationUrl('/notifications/frank/read-all'))}, { method: 'POST', headers: { 'Content-Type': 'text/plain' }, body: 'x' }).catch(() => {})`,
    ),
    '/heartbeat-img': imagePage(loopbackPing()),
    '/heartbeat-img-lan': imagePage(notificationUrl('/heartbeats/nightly-backup/ping')),
    '/toggle': scriptPage(`fetch(${JSON.stringify(deviceUrl(`/devices/${LAMP}/toggle`))}, { method: 'POST', mode: 'no-cors' })`),
  });
}, 120_000);
afterAll(async () => {
  await Promise.all([lan?.close(), devices?.kill(), notifications?.kill(), attacker?.close()]);
});

/** The service's answer to the request (POST unless named) the attacker's page at `attackPage` sends to `target`, as it went over the wire. */
async function answerTo(page: Page, attackPage: string, target: string, method = 'POST'): Promise<RequestOnTheWire> {
  const wire = await watchRequests(page);
  const answered = wire.answerTo(target, method);
  await page.goto(attacker.urlOf(attackPage));
  return answered;
}

/** What a form's POST leaves on screen: the page navigates to the service's answer. */
async function shownAfterForm(page: Page, target: string): Promise<string> {
  await page.waitForURL(target, { timeout: 10_000 });
  return (await page.locator('body').textContent()) ?? '';
}

// Chromium sends Fetch Metadata (Sec-Fetch-Site) only to trustworthy origins (https, localhost): to a LAN name over
// plain HTTP a cross-site POST carries only its Origin, so the Origin check is what refuses it.
const refusedCrossSite = (origin = `http://${ATTACKER_HOST}:${new URL(attacker.urlOf('/')).port}`) => ({ status: 403, secFetchSite: undefined, origin });

// Node-side reads, as curl makes them: no Origin, no Sec-Fetch-Site.
async function getJson<T>(url: string): Promise<T> {
  const res = await fetch(url.replace(LAN_HOST, '127.0.0.1'));
  if (!res.ok) throw new Error(`GET ${url} answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as T;
}
const doorState = async () => (await getJson<{ doors: Array<{ state: string }> }>(deviceUrl(`/devices/${GARAGE}/garage-door`))).doors[0]?.state;
const lampState = async () => (await getJson<{ channels: Array<{ on: boolean | null }> }>(deviceUrl(`/devices/${LAMP}`))).channels[0]?.on;
const recipients = () => getJson<Array<{ recipient: string; total: number; unread: number }>>(notificationUrl('/recipients'));

describe('a page on another site, opened in a browser at home', () => {
  it('cannot open the garage door with an auto-submitted empty form: 403, and the door stays as it was', async () => {
    const before = await doorState();
    const page = await lan.browser.newPage();

    const target = deviceUrl(`/devices/${GARAGE}/garage-door/0/open`);

    const answer = await answerTo(page, '/garage', target);

    expect(answer).toEqual(refusedCrossSite());
    expect(await shownAfterForm(page, target)).toContain('CROSS_ORIGIN_REFUSED');
    expect(before).toMatch(/^(open|closed)$/);
    expect(await doorState()).toBe(before);
    await page.close();
  }, 60_000);

  it('cannot open the garage door from a sandboxed page (Origin: null): 403, and the door stays as it was', async () => {
    const before = await doorState();
    const page = await lan.browser.newPage();
    const target = deviceUrl(`/devices/${GARAGE}/garage-door/0/open`);

    const answer = await answerTo(page, '/garage-sandboxed', target);

    expect(answer).toEqual(refusedCrossSite('null'));
    expect(await shownAfterForm(page, target)).toContain('CROSS_ORIGIN_REFUSED');
    expect(await doorState()).toBe(before);
    await page.close();
  }, 60_000);

  it('cannot create a priority-2 emergency with a multipart form: 403, and nothing is stored', async () => {
    const page = await lan.browser.newPage();

    const target = notificationUrl('/notifications');

    const answer = await answerTo(page, '/emergency', target);

    expect(answer).toEqual(refusedCrossSite());
    expect(await shownAfterForm(page, target)).toContain('CROSS_ORIGIN_REFUSED');
    expect((await recipients()).map((r) => r.recipient)).not.toContain('intruded');
    expect(await getJson<unknown[]>(notificationUrl('/notifications/intruded'))).toEqual([]);
    await page.close();
  }, 60_000);

  it('cannot mark a ringing inbox read with a text/plain form or fetch: 403 both, and the unread count stays', async () => {
    for (const title of ['Smoke in the kitchen', 'Water in the cellar']) {
      const res = await fetch(notificationUrl('/notifications').replace(LAN_HOST, '127.0.0.1'), {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ recipient: 'frank', title, message: 'Check it' }),
      });
      expect(res.status).toBe(201);
    }
    const page = await lan.browser.newPage();
    const target = notificationUrl('/notifications/frank/read-all');

    const byForm = await answerTo(page, '/read-all-form', target);
    const shown = await shownAfterForm(page, target);
    const byFetch = await answerTo(page, '/read-all-fetch', target);

    expect({ byForm, byFetch }).toEqual({ byForm: refusedCrossSite(), byFetch: refusedCrossSite() });
    expect(shown).toContain('CROSS_ORIGIN_REFUSED');
    expect(await recipients()).toContainEqual({ recipient: 'frank', total: 2, unread: 2 });
    await page.close();
  }, 60_000);

  it("cannot ping a heartbeat with an <img> on 127.0.0.1 or the LAN name: 403 both, and the heartbeat's last ping stays", async () => {
    const put = await fetch(notificationUrl('/heartbeats/nightly-backup').replace(LAN_HOST, '127.0.0.1'), {
      method: 'PUT',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        intervalSeconds: 3600,
        notification: { recipient: 'ops', title: 'Backup', message: 'The nightly backup did not report', priority: 2 },
      }),
    });
    expect(put.status).toBe(200);
    const lastPing = async () =>
      (await getJson<{ heartbeats: Array<{ name: string; lastPingAt: string }> }>(notificationUrl('/heartbeats'))).heartbeats[0]?.lastPingAt;
    const before = await lastPing();
    const page = await lan.browser.newPage();

    const onLoopback = await answerTo(page, '/heartbeat-img', loopbackPing(), 'GET');
    const onLanName = await answerTo(page, '/heartbeat-img-lan', notificationUrl('/heartbeats/nightly-backup/ping'), 'GET');
    const afterImages = await lastPing();
    // What cron does, as a control: the same GET without a browser's headers pings.
    const byCron = await fetch(loopbackPing());

    // On loopback Chromium says cross-site; to the LAN name over plain HTTP only the page's Referer tells.
    expect(onLoopback).toEqual({ status: 403, secFetchSite: 'cross-site', origin: undefined });
    expect(onLanName).toEqual({ status: 403, secFetchSite: undefined, origin: undefined });
    expect(before).toEqual(expect.any(String));
    expect(afterImages).toBe(before);
    expect(byCron.status).toBe(200);
    expect(((await byCron.json()) as { lastPingAt: string }).lastPingAt > before!).toBe(true);
    await page.close();
  }, 60_000);

  it("cannot toggle a device's channel with fetch(no-cors): 403, and the channel stays as it was", async () => {
    const before = await lampState();
    const page = await lan.browser.newPage();

    const answer = await answerTo(page, '/toggle', deviceUrl(`/devices/${LAMP}/toggle`));

    expect(answer).toEqual(refusedCrossSite());
    expect(await lampState()).toBe(before);
    await page.close();
  }, 60_000);
});

/** A GET to 127.0.0.1:`port` with the Host header a rebound name would carry. */
function getWithHost(port: number, path: string, host: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers: { Host: host }, timeout: 10_000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('timeout', () => req.destroy(new Error(`GET ${path} timed out`)));
    req.on('error', reject);
    req.end();
  });
}

describe('a read through a rebound DNS name (Host: evil.example)', () => {
  it('is refused with 421 HOST_NOT_ALLOWED on GET /devices and GET /notifications/<recipient>, while the allowed name reads', async () => {
    const reads = [
      { port: devices.port, path: '/devices' },
      { port: notifications.port, path: '/notifications/frank' },
    ];

    const rebound = await Promise.all(reads.map(({ port, path }) => getWithHost(port, path, `evil.example:${port}`)));
    const allowed = await Promise.all(reads.map(({ port, path }) => getWithHost(port, path, `${LAN_HOST}:${port}`)));

    for (const answer of rebound) {
      expect(answer.status).toBe(421);
      expect(JSON.parse(answer.body)).toMatchObject({ code: 'HOST_NOT_ALLOWED', error: expect.any(String), solution: expect.any(String) });
    }
    expect(allowed.map((a) => a.status)).toEqual([200, 200]);
  }, 30_000);
});

const docsOf: Array<{ name: string; service: () => ServiceProcess; operations: string[] }> = [
  { name: 'device-control', service: () => devices, operations: ['GET /devices', 'POST /devices/{uuid}/toggle'] },
  { name: 'notifications', service: () => notifications, operations: ['POST /notifications', 'GET /notifications/{recipient}'] },
];

for (const { name, service, operations } of docsOf) {
  describe(`${name} /docs opened from another machine of the LAN (plain HTTP, ${LAN_HOST})`, () => {
    it('renders every operation with no failed request, no error response and no console error', async () => {
      const page = await lan.browser.newPage();
      const trouble = watchTrouble(page);

      await page.goto(`http://${LAN_HOST}:${service().port}/docs`, { waitUntil: 'load', timeout: 30_000 });
      const rendered = await page
        .locator('.opblock')
        .first()
        .waitFor({ timeout: 15_000 })
        .then(
          () => true,
          () => false,
        );

      expect({ rendered, problems: trouble.problems }).toEqual({ rendered: true, problems: [] });

      for (const operation of operations) {
        const [method, path] = operation.split(' ') as [string, string];
        const block = page.locator(`.opblock-${method.toLowerCase()}`).filter({ has: page.locator(`[data-path="${path}"]`) });
        await expect(block.first().isVisible(), operation).resolves.toBe(true);
      }
      await page.close();
    }, 60_000);
  });
}
