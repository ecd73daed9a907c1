import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acceptedAnswer, startFakePushover } from '../../services/notifications/test/faults/fake-pushover.js';
import {
  createToken,
  LAN_HOST,
  launchLanBrowser,
  saveScreenshots,
  seriousAxeViolations,
  signIn,
  startLanService,
  statusWith,
  takeSecretOnce,
  openTokens,
  confirmOnToken,
  newPageWithClock,
  startAll,
  waitForTextMovingClock,
  watchTrouble,
} from './lan-browser.js';
import { writeStoppedHistory } from './history-fixture.js';
import type { ServiceProcess } from '../../packages/test-kit/src/index.js';
import { artifactPath } from '../support/artifacts.js';

// The notifications inbox as a laptop on the LAN opens it, against the service with a fake Pushover behind it.
const PNG_1PX = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYPj/HwADAgH/2M2vWQAAAABJRU5ErkJggg==';
const CREDENTIALS = { PUSHOVER_USER_KEY: 'u'.repeat(30), PUSHOVER_API_TOKEN: 'a'.repeat(30) };

/** The admin key of the service behind a key (its tokens and its key prompt). */
const KEY = 'inbox-admin-key-2612-0123456789abcdef';

// One Chromium and every service of the file, started before the first test. Each describe has its own service; the
// key prompt's and the tokens' share one.
let lan: Awaited<ReturnType<typeof launchLanBrowser>>;
let pushover: Awaited<ReturnType<typeof startFakePushover>>;
let flakySends = 0;
const services: Partial<Record<'main' | 'empty' | 'keyed' | 'large', ServiceProcess>> = {};
let leakChain: Promise<{ id: string }> | undefined;
const largeDir = mkdtempSync(join(tmpdir(), 'inbox-100k-'));
beforeAll(async () => {
  pushover = await startFakePushover((form) =>
    form.fields.title === 'Refused' || (form.fields.title === 'Refused once' && flakySends++ === 0)
      ? { status: 400, body: { status: 0, errors: ['user identifier is not a valid user'] } }
      : form.fields.title === 'Later'
        ? { status: 503, body: 'Service Unavailable' }
        : acceptedAnswer(),
  );
  const largeHistory = join(largeDir, 'notifications.yaml');
  await startAll([
    () => launchLanBrowser().then((browser) => (lan = browser)),
    () =>
      startLanService('notifications', { STORAGE_PATH: 'data/notifications.yaml', PROVIDER_API_URL: pushover.url, ...CREDENTIALS }).then(
        (s) => (services.main = s),
      ),
    () => startLanService('notifications', { STORAGE_PATH: 'data/notifications.yaml' }).then((s) => (services.empty = s)),
    () => startLanService('notifications', { STORAGE_PATH: 'data/notifications.yaml', API_KEY: KEY }).then((s) => (services.keyed = s)),
    () =>
      writeStoppedHistory(largeHistory, 100_000)
        .then(() => startLanService('notifications', { STORAGE_PATH: largeHistory }))
        .then((s) => (services.large = s)),
  ]);
  // An escalation whose first step is due in a minute, started now so that the minute passes while the other tests
  // run; its test is the file's last.
  leakChain = apiOf(services.main!.port).create({
    recipient: 'dora',
    title: 'Water leak',
    message: 'Water under the sink',
    priority: 2,
    escalate: [
      { recipient: 'finn', afterSeconds: 60 },
      { recipient: 'gus', afterSeconds: 7200 },
    ],
  });
}, 240_000);
afterAll(async () => {
  await Promise.all([lan?.close(), ...Object.values(services).map((service) => service.kill())]);
  await pushover?.close();
  rmSync(largeDir, { recursive: true, force: true });
});

interface Api {
  create(body: Record<string, unknown>): Promise<{ id: string }>;
  get(path: string): Promise<{ status: number; body: unknown }>;
  /** PUT a scheduled send or a heartbeat, as a script would. */
  put(path: string, body: Record<string, unknown>): Promise<unknown>;
}

function apiOf(port: number, key?: string): Api {
  const headers: Record<string, string> = { 'Content-Type': 'application/json', ...(key ? { 'X-API-Key': key } : {}) };
  return {
    async create(body) {
      const res = await fetch(`http://127.0.0.1:${port}/notifications`, { method: 'POST', headers, body: JSON.stringify(body) });
      if (res.status !== 201) throw new Error(`create answered ${res.status}: ${await res.text()}`);
      return (await res.json()) as { id: string };
    },
    async get(path) {
      const res = await fetch(`http://127.0.0.1:${port}${path}`, { headers });
      return { status: res.status, body: await res.json() };
    },
    async put(path, body) {
      const res = await fetch(`http://127.0.0.1:${port}${path}`, { method: 'PUT', headers, body: JSON.stringify(body) });
      if (res.status !== 200) throw new Error(`PUT ${path} answered ${res.status}: ${await res.text()}`);
      return res.json();
    },
  };
}

const itemOf = (page: Page, title: string) => page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: title }) });
/** An entry of the Scheduled or Heartbeats section, by its heading. */
const planOf = (page: Page, section: 'Scheduled' | 'Heartbeats', heading: string) =>
  page
    .getByRole('region', { name: section })
    .getByRole('listitem')
    .filter({ has: page.getByRole('heading', { name: heading, exact: true }) });

interface ScheduledBody {
  scheduled: Array<{ key: string; sendAt: string; notification: { recipient: string; title: string; message: string } }>;
}
interface HeartbeatsBody {
  heartbeats: Array<{ name: string; state: 'up' | 'down'; lastPingAt: string }>;
}

/** A time `ms` from now as a datetime-local field takes it (the browser and this process share the time zone). */
function localFieldTime(ms: number): { field: string; iso: string } {
  const at = new Date(Date.now() + ms);
  at.setSeconds(0, 0);
  const pad = (n: number) => String(n).padStart(2, '0');
  const field = `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}T${pad(at.getHours())}:${pad(at.getMinutes())}`;
  return { field, iso: at.toISOString() };
}

describe(`notifications inbox at http://${LAN_HOST}/`, () => {
  let running: ServiceProcess;
  let api: Api;
  let url: string;
  beforeAll(() => {
    running = services.main!;
    api = apiOf(running.port);
    url = `http://${LAN_HOST}:${running.port}/`;
  });

  it('shows a notification created by curl in the open inbox without a reload, with its delivery status and unread badge', async () => {
    await api.create({ recipient: 'alice', title: 'Backup done', message: 'Nightly backup finished' });
    const page = await lan.browser.newPage();
    const trouble = watchTrouble(page);
    await page.goto(`${url}#recipient=alice`);
    await itemOf(page, 'Backup done').waitFor();
    await page.getByText('Live: on').waitFor();
    let navigations = 0;
    page.on('framenavigated', () => (navigations += 1));

    await api.create({ recipient: 'alice', title: 'Door opened', message: 'Front door opened at 22:14' });
    await api.create({ recipient: 'alice', title: 'Refused', message: 'Pushover refuses this one' });
    await api.create({ recipient: 'alice', title: 'Later', message: 'Pushover is down for this one' });
    await itemOf(page, 'Door opened').waitFor();
    await itemOf(page, 'Later').waitFor();

    expect(await page.locator('.inbox h3').allTextContents()).toEqual(['Unread: Later', 'Unread: Refused', 'Unread: Door opened', 'Unread: Backup done']);
    expect(await itemOf(page, 'Later').textContent()).toMatch(/Pending, next try in \d+ seconds/);
    expect(await itemOf(page, 'Door opened').textContent()).toContain('Sent');
    await expect.poll(() => itemOf(page, 'Refused').textContent()).toContain('Failed: ');
    await expect.poll(() => page.getByRole('button', { name: /alice/ }).textContent()).toBe('alice4');
    expect(navigations).toBe(0);
    expect(trouble.problems).toEqual([]);
    await page.close();
  }, 60_000);

  it('marks read and unread, reads all and deletes, and the service agrees', async () => {
    const one = await api.create({ recipient: 'bob', title: 'Washer done', message: 'Laundry is ready' });
    const two = await api.create({ recipient: 'bob', title: 'Mail', message: 'The post came' });
    const page = await lan.browser.newPage();
    const trouble = watchTrouble(page);
    await page.goto(`${url}#recipient=bob`);
    const washer = itemOf(page, 'Washer done');
    await washer.waitFor();
    const stateOf = async (id: string) => (await api.get(`/notifications/single/${id}`)).body as { read: boolean };

    await washer.getByRole('button', { name: 'Mark read' }).click();
    await washer.getByRole('button', { name: 'Mark unread' }).waitFor();
    const afterRead = await stateOf(one.id);
    await washer.getByRole('button', { name: 'Mark unread' }).click();
    await washer.getByRole('button', { name: 'Mark read' }).waitFor();
    const afterUnread = await stateOf(one.id);
    await page.getByRole('button', { name: 'Mark all read' }).click();
    await expect.poll(async () => (await api.get('/recipients')).body).toContainEqual({ recipient: 'bob', total: 2, unread: 0 });
    await itemOf(page, 'Mail').getByRole('button', { name: 'Delete Mail' }).click();
    await itemOf(page, 'Mail').waitFor({ state: 'detached' });

    expect(afterRead.read).toBe(true);
    expect(afterUnread.read).toBe(false);
    expect((await api.get(`/notifications/single/${two.id}`)).status).toBe(404);
    expect(await page.getByRole('button', { name: 'Mark read' }).count()).toBe(0);
    expect(trouble.problems).toEqual([]);
    await page.close();
  }, 60_000);

  it('resends a failed delivery from its card, and the card shows the new outcome', async () => {
    const failed = await api.create({ recipient: 'erin', title: 'Refused once', message: 'The first try is refused' });
    const page = await lan.browser.newPage();
    const trouble = watchTrouble(page);
    await page.goto(`${url}#recipient=erin`);
    const card = itemOf(page, 'Refused once');
    await expect.poll(() => card.textContent()).toContain('Failed: ');

    await card.getByRole('button', { name: 'Resend' }).click();
    await expect.poll(() => card.textContent()).toContain('Sent');

    expect((await api.get(`/notifications/single/${failed.id}`)).body).toMatchObject({ delivery: { status: 'sent', resentAt: expect.any(String) } });
    expect(await card.getByRole('button', { name: 'Resend' }).count()).toBe(0);
    expect(trouble.problems).toEqual([]);
    await page.close();
  }, 60_000);

  it('shows an image attachment inline and offers any other file as a download, both fetched with the page', async () => {
    await api.create({
      recipient: 'carol',
      title: 'Camera',
      message: 'Motion at the gate',
      attachment: { filename: 'gate.png', contentType: 'image/png', data: PNG_1PX },
    });
    await api.create({
      recipient: 'carol',
      title: 'Report',
      message: 'Weekly report',
      attachment: { filename: 'report.txt', contentType: 'text/plain', data: Buffer.from('all good\n').toString('base64') },
    });
    const page = await lan.browser.newPage();
    const trouble = watchTrouble(page);
    await page.goto(`${url}#recipient=carol`);
    const image = page.getByRole('img', { name: 'gate.png' });
    await image.waitFor();
    await expect.poll(() => image.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(1);

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: /Download report\.txt/ }).click()]);

    expect(download.suggestedFilename()).toBe('report.txt');
    expect(trouble.problems).toEqual([]);
    await page.close();
  }, 60_000);

  it('saves an attachment under the name the server gives it: a bidi trick keeps the extension of its type', async () => {
    const { id } = await api.create({
      recipient: 'grace',
      title: 'Log',
      message: 'Build log',
      attachment: { filename: '\u202Etxt.bat', contentType: 'text/plain', data: Buffer.from('build ok\n').toString('base64') },
    });
    const served = await fetch(`http://127.0.0.1:${running.port}/notifications/single/${id}/attachment`);
    const page = await lan.browser.newPage();
    const trouble = watchTrouble(page);
    await page.goto(`${url}#recipient=grace`);

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: /^Download txt\.bat\.txt/ }).click()]);

    expect(served.headers.get('content-disposition')).toMatch(/^attachment; filename="?txt\.bat\.txt"?$/);
    expect(download.suggestedFilename()).toBe('txt.bat.txt');
    expect(trouble.problems).toEqual([]);
    await page.close();
  }, 60_000);

  it("sends from the form with Pushover's fields, and refuses what the API refuses before sending", async () => {
    const page = await lan.browser.newPage();
    const trouble = watchTrouble(page);
    await page.goto(`${url}#recipient=alice`);
    const form = page.getByRole('form', { name: 'Send a notification' });
    const defaults = { priority: await form.getByLabel('Priority').inputValue(), sound: await form.getByLabel('Sound').inputValue() };
    await form.getByLabel('Recipient').fill('dave');
    await form.getByLabel('Title', { exact: true }).fill('Garage');
    await form.getByLabel('Message').fill('Garage door left open');
    await form.getByLabel('URL', { exact: true }).fill('javascript:alert(1)');
    let posts = 0;
    page.on('request', (req) => void (req.method() === 'POST' && (posts += 1)));
    await form.getByRole('button', { name: 'Send' }).click();
    const refusal = await form.getByRole('alert').textContent();

    await form.getByLabel('URL', { exact: true }).fill('https://example.com/cam');
    await form.getByLabel('Priority').selectOption('1');
    await form.getByLabel('Sound').selectOption('bike');
    await form.getByLabel('Monospace font').check();
    await form.getByRole('button', { name: 'Send' }).click();
    await form.getByText('Stored for dave; delivery sent.').waitFor();

    expect(defaults).toEqual({ priority: '0', sound: '' });
    expect(refusal).toContain('url: must be a link Pushover opens');
    const [stored] = (await api.get('/notifications/dave')).body as Array<Record<string, unknown>>;
    expect(stored).toMatchObject({
      title: 'Garage',
      message: 'Garage door left open',
      priority: 1,
      sound: 'bike',
      url: 'https://example.com/cam',
      monospace: true,
    });
    expect(posts).toBe(1);
    expect(trouble.problems).toEqual([]);
    await page.close();
  }, 60_000);

  it('schedules a send from the page in some minutes and at a time, lists both soonest first, and cancels one: the service agrees', async () => {
    const page = await lan.browser.newPage();
    const trouble = watchTrouble(page);
    await page.goto(`${url}#recipient=alice`);
    const form = page.getByRole('form', { name: 'Schedule a notification' });
    const at = localFieldTime(2 * 3_600_000);

    await form.getByLabel('Recipient').fill('frank');
    await form.getByLabel('Title', { exact: true }).fill('Bins');
    await form.getByLabel('Message').fill('Take the bins out');
    await form.getByLabel('Minutes from now').fill('30');
    await form.getByRole('button', { name: 'Schedule' }).click();
    await planOf(page, 'Scheduled', 'Bins').waitFor();
    await form.getByLabel('Title', { exact: true }).fill('Dentist');
    await form.getByLabel('Message').fill('Leave for the dentist');
    await form.getByLabel('At a time').check();
    await form.getByLabel('Send at').fill(at.field);
    await form.getByRole('button', { name: 'Schedule' }).click();
    await planOf(page, 'Scheduled', 'Dentist').waitFor();
    const listed = ((await api.get('/scheduled')).body as ScheduledBody).scheduled;
    const bins = planOf(page, 'Scheduled', 'Bins');
    const binsText = await bins.textContent();

    await bins.getByRole('button', { name: `Cancel ${listed[0]!.key}` }).click();
    await bins.waitFor({ state: 'detached' });

    expect(listed.map((s) => [s.notification, s.key])).toEqual([
      [{ recipient: 'frank', title: 'Bins', message: 'Take the bins out', priority: 0 }, expect.stringMatching(/^bins-[0-9a-z]+$/)],
      [{ recipient: 'frank', title: 'Dentist', message: 'Leave for the dentist', priority: 0 }, expect.stringMatching(/^dentist-[0-9a-z]+$/)],
    ]);
    expect(Math.abs(Date.parse(listed[0]!.sendAt) - Date.now() - 30 * 60_000)).toBeLessThan(60_000);
    expect(listed[1]!.sendAt).toBe(at.iso);
    expect(binsText).toMatch(/in 30 minutes.*Take the bins out.*To frank at/);
    expect(((await api.get('/scheduled')).body as ScheduledBody).scheduled.map((s) => s.notification.title)).toEqual(['Dentist']);
    expect(await page.getByRole('region', { name: 'Scheduled' }).getByRole('listitem').count()).toBe(1);
    expect(trouble.problems).toEqual([]);
    await page.close();
  }, 60_000);

  it('shows heartbeats made by a script: one missed turns down without a reload, Ping now brings it up, Remove removes it', async () => {
    await api.put('/heartbeats/nightly-backup', {
      intervalSeconds: 86_400,
      graceSeconds: 3_600,
      notification: { recipient: 'ops', title: 'Backup', message: 'The nightly backup did not report', priority: 2 },
    });
    await api.put('/heartbeats/nas-scrub', { intervalSeconds: 10, notification: { recipient: 'ops', title: 'Scrub', message: 'The NAS scrub is late' } });
    const page = await lan.browser.newPage();
    const trouble = watchTrouble(page);
    await page.goto(`${url}#recipient=alice`);
    const backup = planOf(page, 'Heartbeats', 'nightly-backup');
    const scrub = planOf(page, 'Heartbeats', 'nas-scrub');
    await backup.waitFor();
    const firstText = await scrub.textContent();
    const lastPing = () => scrub.locator('time').first().getAttribute('datetime');
    const missedPing = await lastPing();

    // Missed after 10 s: its notification is a new one on the stream, which reads the heartbeats again.
    await expect.poll(() => scrub.textContent(), { timeout: 20_000 }).toMatch(/down since/);
    await scrub.getByRole('button', { name: 'Ping now: nas-scrub' }).click();
    await expect.poll(lastPing).not.toBe(missedPing);
    const pinged = ((await api.get('/heartbeats')).body as HeartbeatsBody).heartbeats.find((h) => h.name === 'nas-scrub');
    const pingedText = await scrub.textContent();
    await scrub.getByRole('button', { name: 'Remove nas-scrub' }).click();
    await scrub.waitFor({ state: 'detached' });

    expect(firstText).toMatch(/^nas-scrubupLast ping .* · next due in \d+ seconds · when missed: Scrub to ops/);
    expect(firstText).toContain(`http://${LAN_HOST}:${running.port}/heartbeats/nas-scrub/ping`);
    expect(pinged?.state).toBe('up');
    expect(Date.parse(pinged!.lastPingAt)).toBeGreaterThan(Date.parse(missedPing!));
    expect(pingedText).toMatch(/^nas-scrubup/);
    expect(((await api.get('/heartbeats')).body as HeartbeatsBody).heartbeats.map((h) => [h.name, h.state])).toEqual([['nightly-backup', 'up']]);
    expect(pushover.deliveredCount('The NAS scrub is late')).toBeGreaterThanOrEqual(1);
    expect(trouble.problems).toEqual([]);
    await page.getByRole('region', { name: 'Scheduled' }).scrollIntoViewIfNeeded();
    await saveScreenshots(page, 'notifications-plans');
    await page.close();
  }, 60_000);

  it('passes an axe scan with no serious or critical violation, on desktop and on a 360 px phone', async () => {
    const page = await lan.browser.newPage({ viewport: { width: 1280, height: 800 } });
    const trouble = watchTrouble(page);
    await page.goto(`${url}#recipient=carol`);
    await page.getByRole('img', { name: 'gate.png' }).waitFor();
    await page.getByText('Live: on').waitFor();

    const desktop = await seriousAxeViolations(page);
    await page.setViewportSize({ width: 360, height: 740 });
    const phone = await seriousAxeViolations(page);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth);
    await page.goto(`${url}#recipient=alice`);
    await itemOf(page, 'Door opened').waitFor();
    await saveScreenshots(page, 'notifications');

    expect({ desktop, phone, overflow, problems: trouble.problems }).toEqual({ desktop: [], phone: [], overflow: false, problems: [] });
    await page.close();
  }, 60_000);
});

describe('notifications inbox on an empty history', () => {
  let running: ServiceProcess;
  beforeAll(() => {
    running = services.empty!;
  });

  it("shows a script's first notification within seconds without a reload, and a second new recipient appears in the picker", async () => {
    const api = apiOf(running.port);
    const page = await lan.browser.newPage();
    const trouble = watchTrouble(page);
    await page.goto(`http://${LAN_HOST}:${running.port}/`);
    await page.getByText('No notifications yet').waitFor();
    await page.getByText('Live: on').waitFor();
    // The page puts the recipient it chose into the address (#recipient=…): a same-document navigation, not a reload.
    let loads = 0;
    page.on('load', () => (loads += 1));
    const picker = page.getByRole('navigation', { name: 'Recipients' });

    await api.create({ recipient: 'gina', title: 'Hello from cron', message: 'The first one' });
    await itemOf(page, 'Hello from cron').waitFor({ timeout: 5_000 });
    await api.create({ recipient: 'hank', title: 'For someone else', message: 'The second recipient' });
    await picker.getByRole('button', { name: /^hank/ }).waitFor({ timeout: 5_000 });

    expect(await picker.getByRole('button').allTextContents()).toEqual(['gina1', 'hank1']);
    expect(await page.getByRole('heading', { name: /^Inbox/ }).textContent()).toBe('Inbox of gina');
    expect(await itemOf(page, 'For someone else').count()).toBe(0);
    expect(await page.getByText('No notifications yet').count()).toBe(0);
    expect(page.url()).toMatch(/#recipient=gina$/);
    expect(loads).toBe(0);
    expect(trouble.problems).toEqual([]);
    await page.close();
  }, 60_000);
});

describe('notifications inbox with scoped tokens', () => {
  let running: ServiceProcess;
  let api: Api;
  let url: string;
  beforeAll(async () => {
    running = services.keyed!;
    api = apiOf(running.port, KEY);
    url = `http://${LAN_HOST}:${running.port}/`;
    await api.create({ recipient: 'alice', title: 'For alice', message: 'Only alice reads this' });
    await api.create({ recipient: 'bob', title: 'For bob', message: 'Only bob reads this' });
  });

  it("lets the admin create a token for alice's inbox, shown once; signed in with it the page shows and sends to alice only", async () => {
    const page = await lan.browser.newPage();
    const trouble = watchTrouble(page);
    await signIn(page, `${url}#recipient=bob`, KEY);
    await itemOf(page, 'For bob').waitFor();
    const panel = await openTokens(page);
    const form = panel.getByRole('form', { name: 'New token' });

    await form.getByLabel('Label').fill("Alice's phone");
    await form.getByRole('checkbox', { name: /^notifications:read/ }).check();
    await form.getByRole('group', { name: 'Only these inboxes' }).getByRole('checkbox', { name: 'alice' }).check();
    await form.getByRole('checkbox', { name: /^notifications:send/ }).check();
    await form.getByRole('group', { name: 'Only to these recipients' }).getByRole('checkbox', { name: 'alice' }).check();
    await form.getByLabel(/^Highest priority/).fill('1');
    await form.getByLabel(/^Sends a minute/).fill('30');
    const formViolations = await seriousAxeViolations(page);
    await form.getByRole('button', { name: 'Create token' }).click();
    const { secret, noteText, stored } = await takeSecretOnce(panel);
    const listViolations = await seriousAxeViolations(page);
    await saveScreenshots(page, 'notifications-tokens');

    expect(secret).toMatch(/^hop_[0-9a-f]{12}_/);
    expect(noteText).toContain('you will not see it again');
    expect({ formViolations, listViolations }).toEqual({ formViolations: [], listViolations: [] });
    expect(stored).not.toContain(secret);
    expect(await page.content()).not.toContain(secret);
    expect(await panel.getByRole('listitem').filter({ hasText: "Alice's phone" }).first().textContent()).toMatch(
      /notifications:send \(only alice; priority at most 1; 30 a minute\).*notifications:read \(only alice\).*never expires/,
    );

    const phone = await lan.browser.newPage();
    const phoneTrouble = watchTrouble(phone);
    await signIn(phone, `${url}#recipient=bob`, secret);
    await phone.getByText("Signed in: Alice's phone").waitFor();
    await itemOf(phone, 'For alice').waitFor();
    const picker = phone.getByRole('navigation', { name: 'Recipients' });
    const sendForm = phone.getByRole('form', { name: 'Send a notification' });
    const recipientChoices = await sendForm
      .getByLabel(/^Recipient/)
      .locator('option')
      .allTextContents();
    await sendForm.getByLabel('Message').fill('Sent from her phone');
    await sendForm.getByRole('button', { name: 'Send' }).click();
    await sendForm.getByText('Stored for alice; delivery').waitFor();

    await expect.poll(() => picker.getByRole('button').allTextContents()).toEqual(['alice2']);
    expect(await itemOf(phone, 'For bob').count()).toBe(0);
    expect(recipientChoices).toEqual(['alice']);
    expect(phone.url()).toMatch(/#recipient=alice$/);
    expect(await phone.getByRole('button', { name: 'Tokens' }).count()).toBe(0);
    expect(trouble.problems.filter((p) => !/401/.test(p))).toEqual([]);
    expect(phoneTrouble.problems.filter((p) => !/401/.test(p))).toEqual([]);
    await page.close();
    await phone.close();
  }, 60_000);

  it('shows a read-only token the inbox with the send form disabled and the reason', async () => {
    const { secret } = await createToken(running.port, KEY, { label: 'Kitchen screen', scopes: ['notifications:read'] });
    const page = await lan.browser.newPage();
    const trouble = watchTrouble(page);
    await signIn(page, `${url}#recipient=alice`, secret);
    await itemOf(page, 'For alice').waitFor();
    await page.getByText('Signed in: Kitchen screen').waitFor();
    const problemsBefore = trouble.problems.length;
    const form = page.getByRole('form', { name: 'Send a notification' });

    await expect.poll(() => form.getByRole('button', { name: 'Send' }).isDisabled()).toBe(true);

    expect(await form.getByText('This token lacks notifications:send: this page cannot send.').count()).toBe(1);
    // Every inbox, as the token's read is not limited.
    expect(await page.getByRole('navigation', { name: 'Recipients' }).getByRole('button').allTextContents()).toEqual([
      expect.stringMatching(/^alice\d$/),
      'bob1',
    ]);
    expect(trouble.problems.slice(problemsBefore)).toEqual([]);
    await page.close();
  }, 60_000);

  it('shows a token the scheduled sends and heartbeats of the inboxes it reads only, with Cancel and Ping disabled where it may not send, saying why', async () => {
    await api.put('/scheduled/alice-call', { recipient: 'alice', title: 'Call mum', message: 'Sunday call', delaySeconds: 3_600 });
    await api.put('/scheduled/carol-gift', { recipient: 'carol', title: 'Carol only', message: 'Not for the tablet', delaySeconds: 5_400 });
    await api.put('/scheduled/bob-bins', { recipient: 'bob', title: 'Bins for bob', message: 'Bins', delaySeconds: 7_200 });
    await api.put('/heartbeats/bob-backup', { intervalSeconds: 86_400, notification: { recipient: 'bob', message: "Bob's backup is late" } });
    await api.put('/heartbeats/carol-backup', { intervalSeconds: 86_400, notification: { recipient: 'carol', message: "Carol's backup is late" } });
    const { secret } = await createToken(running.port, KEY, {
      label: 'Family tablet',
      scopes: [
        { scope: 'notifications:read', recipients: ['alice', 'bob'] },
        { scope: 'notifications:send', recipients: ['alice'] },
      ],
    });
    const page = await lan.browser.newPage();
    const trouble = watchTrouble(page);
    await signIn(page, `${url}#recipient=alice`, secret);
    const aliceCancel = planOf(page, 'Scheduled', 'Call mum').getByRole('button', { name: 'Cancel alice-call' });
    const bobCancel = planOf(page, 'Scheduled', 'Bins for bob').getByRole('button', { name: 'Cancel bob-bins' });
    const bobPing = planOf(page, 'Heartbeats', 'bob-backup').getByRole('button', { name: 'Ping now: bob-backup' });
    await expect.poll(() => aliceCancel.isEnabled()).toBe(true);
    const headings = (section: string) => page.getByRole('region', { name: section }).getByRole('listitem').getByRole('heading').allTextContents();
    const shown = { scheduled: await headings('Scheduled'), heartbeats: await headings('Heartbeats') };
    const locks = await Promise.all([bobCancel, bobPing].map(async (b) => [await b.isDisabled(), await b.getAttribute('title')]));

    await aliceCancel.click();
    await planOf(page, 'Scheduled', 'Call mum').waitFor({ state: 'detached' });

    expect(shown).toEqual({ scheduled: ['Call mum', 'Bins for bob'], heartbeats: ['bob-backup'] });
    expect(locks).toEqual([
      [true, 'This token lacks notifications:send for bob'],
      [true, 'This token lacks notifications:send for bob'],
    ]);
    expect(((await api.get('/scheduled')).body as ScheduledBody).scheduled.map((s) => s.key)).toEqual(['carol-gift', 'bob-bins']);
    expect(trouble.problems.filter((p) => !/401/.test(p))).toEqual([]);
    await page.close();
  }, 60_000);

  it('revokes a token from the page: its next call is refused with 401 and its open page asks for a key', async () => {
    const { secret } = await createToken(running.port, KEY, { label: 'Old tablet', scopes: ['notifications:read'] });
    const tablet = await newPageWithClock(lan.browser);
    await signIn(tablet, `${url}#recipient=alice`, secret);
    await itemOf(tablet, 'For alice').waitFor();
    await tablet.getByText('Live: on').waitFor();
    const admin = await lan.browser.newPage();
    const trouble = watchTrouble(admin);
    await signIn(admin, url, KEY);
    const panel = await openTokens(admin);
    const before = await statusWith(running.port, '/recipients', secret);

    const item = await confirmOnToken(panel, 'Old tablet', 'Revoke');
    await item.waitFor({ state: 'detached' });

    expect(before).toBe(200);
    expect(await statusWith(running.port, '/recipients', secret)).toBe(401);
    // Its stream ended with the revocation; it reconnects after its 3 s wait, run forward on its clock.
    await waitForTextMovingClock(tablet, 'The key or token was not accepted');
    expect(trouble.problems.filter((p) => !/401/.test(p))).toEqual([]);
    await tablet.close();
    await admin.close();
  }, 60_000);
});

// On the tokens' service, after them: erin, its recipient, would otherwise be an inbox in their pickers.
describe('notifications inbox behind an API key', () => {
  let running: ServiceProcess;
  beforeAll(() => {
    running = services.keyed!;
  });

  it('asks for the key once, then lists and streams with it as a header, never in a URL', async () => {
    const api = apiOf(running.port, KEY);
    await api.create({ recipient: 'erin', title: 'First', message: 'one' });
    const page = await lan.browser.newPage();
    const trouble = watchTrouble(page);
    const urls: string[] = [];
    page.on('request', (req) => urls.push(req.url()));
    await page.goto(`http://${LAN_HOST}:${running.port}/#recipient=erin`);
    await page.getByLabel('API key or token').fill(KEY);
    await page.getByRole('button', { name: 'Unlock' }).click();
    await itemOf(page, 'First').waitFor();
    await page.getByText('Live: on').waitFor();
    const problemsBefore = trouble.problems.length;

    await api.create({ recipient: 'erin', title: 'Second', message: 'two' });
    await itemOf(page, 'Second').waitFor();

    expect(urls.filter((u) => u.includes(KEY))).toEqual([]);
    expect(trouble.problems.slice(0, problemsBefore).every((p) => /401/.test(p))).toBe(true);
    expect(trouble.problems.slice(problemsBefore)).toEqual([]);
    await page.close();
  }, 60_000);
});

describe('notifications inbox with 100,000 stored', () => {
  let running: ServiceProcess;
  beforeAll(() => {
    running = services.large!;
  });

  // The 500 ms limit is judged in docs/benchmarks.md (bench/dashboard-section.ts) from the figures written here, not
  // asserted: timings on this shared machine belong in committed bench results, not in a test that flakes with load.
  it('shows the first page of the inbox five times, timed by the Performance API, and records the times', async () => {
    const firstPageMs: number[] = [];
    for (let run = 0; run < 5; run += 1) {
      const page = await lan.browser.newPage();
      const trouble = watchTrouble(page);
      await page.goto(`http://${LAN_HOST}:${running.port}/#recipient=recipient-0`);
      await page.locator('.inbox li').first().waitFor();
      firstPageMs.push(await page.evaluate(() => performance.getEntriesByName('inbox-first-page')[0]?.startTime ?? Number.NaN));
      expect(await page.locator('.inbox li').count()).toBe(30);
      expect(trouble.problems).toEqual([]);
      await page.close();
    }
    const sorted = [...firstPageMs].sort((a, b) => a - b);
    const median = sorted[2]!;
    writeFileSync(
      artifactPath('bench/results/dashboard-speed.json'),
      `${JSON.stringify({ measuredAt: new Date().toISOString(), stored: 100_000, runs: firstPageMs.map((ms) => Math.round(ms)), medianMs: Math.round(median), limitMs: 500, command: 'RECORD=1 vitest run test/browser/dashboard-inbox.test.ts' }, null, 2)}\n`,
    );

    expect(sorted.every((ms) => Number.isFinite(ms) && ms > 0)).toBe(true);
    const recipients = (await (await fetch(`http://127.0.0.1:${running.port}/recipients`)).json()) as Array<{ total: number }>;
    expect(recipients.reduce((sum, r) => sum + r.total, 0)).toBe(100_000);
  }, 120_000);
});

describe('notifications inbox with an escalation under way', () => {
  let api: Api;
  let url: string;
  beforeAll(() => {
    api = apiOf(services.main!.port);
    url = `http://${LAN_HOST}:${services.main!.port}/`;
  });

  it("shows an escalation's stages on its first notification, and a stage's card links the chain it belongs to", async () => {
    const first = await leakChain!;
    const page = await lan.browser.newPage();
    const trouble = watchTrouble(page);
    await page.goto(`${url}#recipient=dora`);
    const stages = itemOf(page, 'Water leak').getByRole('list', { name: 'Escalation' }).getByRole('listitem');
    await expect.poll(() => stages.allTextContents()).toHaveLength(3);
    const lines = await stages.allTextContents();
    expect(lines[0]).toMatch(/^Step 0 · dora · Sent at .+ · Ringing/);
    // Created when the file started, step 1 may be out already; step 2 shows how a step not yet due reads.
    // It may also be a second from due ("due in 1 second", "due now", "due 1 second ago").
    expect(lines[1]).toMatch(/^Step 1 · finn · (due (in \d+ seconds?|now|\d+ seconds? ago)$|Sent at )/);
    expect(lines[2]).toBe('Step 2 · gus · due in 2 hours');
    expect({ axe: await seriousAxeViolations(page) }).toEqual({ axe: [] });

    // The step goes out at its time; the open card shows it sent without a reload.
    await expect.poll(() => stages.nth(1).textContent(), { timeout: 90_000, interval: 1_000 }).toMatch(/^Step 1 · finn · Sent at /);
    const stage = (await api.get('/notifications/finn')).body as Array<{ id: string; escalation: { of: string; step: number } }>;
    expect(stage.map((n) => n.escalation)).toEqual([{ of: first.id, step: 1 }]);

    // The stage's card, in finn's inbox, names the chain by its first notification and links to it.
    await page.goto(`${url}#recipient=finn`);
    const stageCard = itemOf(page, 'Water leak');
    await stageCard.getByText('Escalation: step 1 of').waitFor();
    await stageCard.getByRole('link', { name: 'Water leak' }).click();
    await expect.poll(() => page.url()).toContain('#recipient=dora');

    // Reading the first ends the chain: the last step says it is never sent.
    await itemOf(page, 'Water leak').getByRole('button', { name: 'Mark read' }).click();
    await expect.poll(() => stages.nth(2).textContent()).toBe('Step 2 · gus · not sent: the chain ended first');
    expect((await api.get('/notifications/gus')).body).toEqual([]);
    // A step is fetched only once due: no 404 for a stage not sent yet.
    expect(trouble.problems).toEqual([]);
    await page.close();
  }, 150_000);
});
