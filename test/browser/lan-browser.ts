import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { eventually, ServiceProcess, type ServiceProcessOptions } from '../../packages/test-kit/src/index.js';
import { artifactPath } from '../support/artifacts.js';

/** The name the pages are opened under: any host but localhost, as from another machine of the LAN. */
export const LAN_HOST = 'homelab.test';

/** The name of a hostile page's site (another origin, another site) on the same loopback. */
export const ATTACKER_HOST = 'attacker.test';

/** A service from source (the test-kit launcher) as the pages reach it: ALLOWED_HOSTS names LAN_HOST; warnings only in its log. */
export function startLanService(service: ServiceProcessOptions['service'], env: Record<string, string>): Promise<ServiceProcess> {
  return ServiceProcess.start({ service, env: { ALLOWED_HOSTS: LAN_HOST, LOG_LEVEL: 'warn', ...env }, readyTimeoutMs: 30_000 });
}

/**
 * Runs a file's starts (its browser, its services) one after another, all before its first test. Not side by side:
 * the run starts three files at once, and their starts together on two loaded cores ran past the ready timeout.
 * Throws the first failure once all have run, so each that started is assigned by its own `.then` and the file's
 * afterAll stops it.
 */
export async function startAll(starts: Array<() => Promise<unknown>>): Promise<void> {
  const failures: unknown[] = [];
  for (const start of starts) await start().catch((error: unknown) => failures.push(error));
  if (failures.length > 0) throw failures[0];
}

/** Debian's Chromium; never a downloaded browser. */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** What went wrong on a page: failed requests, error responses, console errors and CSP violations. */
export interface PageTrouble {
  problems: string[];
}

/** Headless Debian Chromium (a fresh temporary profile each launch) that resolves LAN_HOST and ATTACKER_HOST to 127.0.0.1, with no proxy. */
export async function launchLanBrowser(): Promise<{ browser: Browser; close(): Promise<void> }> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`No Chromium at ${CHROMIUM}: apt-get install -y chromium (Debian), or set CHROMIUM_PATH`);
  }
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    timeout: 30_000,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-proxy-server',
      `--host-resolver-rules=MAP ${LAN_HOST} 127.0.0.1, MAP ${ATTACKER_HOST} 127.0.0.1`,
    ],
  });
  return { browser, close: () => browser.close() };
}

/** Records every failed request, every response >= 400 and every console error or warning of `page`. */
export function watchTrouble(page: Page): PageTrouble {
  const trouble: PageTrouble = { problems: [] };
  page.on('requestfailed', (req) => {
    // ERR_ABORTED: the page itself cancelled it (an event stream closed when the view changes), not a failure.
    if (req.failure()?.errorText !== 'net::ERR_ABORTED') trouble.problems.push(`request failed: ${req.url()} (${req.failure()?.errorText})`);
  });
  page.on('response', (res) => {
    if (res.status() >= 400) trouble.problems.push(`${res.status()} for ${res.url()}`);
  });
  page.on('console', (msg) => {
    if (msg.type() === 'error' || msg.type() === 'warning') trouble.problems.push(`console ${msg.type()}: ${msg.text()}`);
  });
  page.on('pageerror', (err) => trouble.problems.push(`page error: ${err.message}`));
  return trouble;
}

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** axe-core's serious and critical violations on the page as it is now, one line each. */
export async function seriousAxeViolations(page: Page): Promise<string[]> {
  // Evaluated through the DevTools protocol, which the page's CSP (scripts from 'self' only) does not apply to; once
  // per document, as sending its half megabyte again costs as much as a scan.
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE_SOURCE);
  return page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: {
          run(context: Document): Promise<{ violations: Array<{ id: string; impact: string | null; help: string; nodes: Array<{ target: unknown[] }> }> }>;
        };
      }
    ).axe;
    const { violations } = await axe.run(document);
    return violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.impact} ${v.id}: ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  });
}

/** Desktop and phone (360 px) screenshots of the page as docs/screenshots/<name>-{desktop,phone}.png (there under RECORD=1). */
export async function saveScreenshots(page: Page, name: string): Promise<void> {
  const viewport = page.viewportSize();
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.screenshot({ path: artifactPath(`docs/screenshots/${name}-desktop.png`) });
  await page.setViewportSize({ width: 360, height: 740 });
  await page.screenshot({ path: artifactPath(`docs/screenshots/${name}-phone.png`), fullPage: true });
  if (viewport) await page.setViewportSize(viewport);
}

/** Opens `url` and enters `key` (the API key or a token) into the page's key prompt. */
export async function signIn(page: Page, url: string, key: string): Promise<void> {
  await page.goto(url);
  await page.getByLabel('API key or token').fill(key);
  await page.getByRole('button', { name: 'Unlock' }).click();
}

/** A token made through POST /tokens with the admin key, as a script would; answers its id and secret. */
export async function createToken(port: number, adminKey: string, body: { label: string; scopes: unknown[] }): Promise<{ id: string; secret: string }> {
  const res = await fetch(`http://127.0.0.1:${port}/tokens`, {
    method: 'POST',
    headers: { 'X-API-Key': adminKey, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (res.status !== 201) throw new Error(`POST /tokens answered ${res.status}: ${await res.text()}`);
  const { token, secret } = (await res.json()) as { token: { id: string }; secret: string };
  return { id: token.id, secret };
}

/** The status GET `path` answers with this key or token. */
export async function statusWith(port: number, path: string, key: string): Promise<number> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, { headers: { 'X-API-Key': key } });
  await res.body?.cancel();
  return res.status;
}

/** Everything the page keeps in its storage, to prove a secret is not there. */
export function storedByPage(page: Page): Promise<string> {
  return page.evaluate(() => JSON.stringify({ session: { ...sessionStorage }, local: { ...localStorage } }));
}

/** The Tokens panel of a dashboard signed in as an admin, opened. */
export async function openTokens(page: Page): Promise<Locator> {
  await page.getByRole('button', { name: 'Tokens' }).click();
  return page.getByRole('region', { name: 'Tokens' });
}

/** The new secret the Tokens panel shows once: read, copied, then dismissed with Done; with the page's storage meanwhile. */
export async function takeSecretOnce(panel: Locator): Promise<{ secret: string; noteText: string; copied: string; stored: string }> {
  const note = panel.getByRole('region', { name: 'New secret' });
  const secret = await note.getByLabel('Secret').inputValue();
  const noteText = (await note.textContent()) ?? '';
  const stored = await storedByPage(panel.page());
  await note.getByRole('button', { name: 'Copy' }).click();
  const copied = (await note.getByRole('status').textContent()) ?? '';
  await note.getByRole('button', { name: 'Done' }).click();
  await note.waitFor({ state: 'detached' });
  return { secret, noteText, copied, stored };
}

/** Rotates or revokes the token labelled `label` from the panel, confirming; answers its list item. */
export async function confirmOnToken(panel: Locator, label: string, action: 'Rotate' | 'Revoke'): Promise<Locator> {
  const item = panel.getByRole('listitem').filter({ has: panel.page().getByRole('heading', { name: label }) });
  await item.getByRole('button', { name: `${action} ${label}`, exact: true }).click();
  await item.getByRole('button', { name: `${action} ${label} now` }).click();
  return item;
}

/** A new page whose clock (`page.clock`, installed before it opens anything) runs on its own until moved forward. */
export async function newPageWithClock(browser: Browser): Promise<Page> {
  const page = await browser.newPage();
  await page.clock.install();
  return page;
}

/**
 * Waits until `page` (from {@link newPageWithClock}) shows `text`, moving its clock a second forward at each look: what
 * the page does after a timer, such as the event stream's 3 s wait before it reconnects, without waiting it out.
 */
export async function waitForTextMovingClock(page: Page, text: string, timeoutMs = 10_000): Promise<void> {
  await eventually(
    async () => {
      if ((await page.getByText(text).count()) > 0) return true;
      await page.clock.fastForward(1_000);
      return false;
    },
    { what: `"${text}" on the page`, timeoutMs, intervalMs: 100 },
  );
}
