import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulatedSetup, type EmulatedSetup } from '../../services/device-control/test/e2e/emulated-setup.js';
import { LAN_HOST, launchLanBrowser, saveScreenshots, seriousAxeViolations, startLanService, watchTrouble } from './lan-browser.js';
import type { ServiceProcess } from '../../packages/test-kit/src/index.js';

// The device-control dashboard as a laptop on the LAN opens it: plain HTTP, a host name that is not localhost.
let lan: Awaited<ReturnType<typeof launchLanBrowser>>;
beforeAll(async () => {
  lan = await launchLanBrowser();
}, 60_000);
afterAll(async () => lan?.close());

const switchOf = (page: Page, device: string, channel: string) => page.getByRole('switch', { name: `${device}: ${channel}` });
const cardOf = (page: Page, device: string) => page.getByRole('article', { name: device });

async function deviceState(port: number, uuid: string, key?: string): Promise<Array<boolean | null>> {
  const res = await fetch(`http://127.0.0.1:${port}/devices/${uuid}`, { headers: key ? { 'X-API-Key': key } : {} });
  return ((await res.json()) as { channels: Array<{ on: boolean | null }> }).channels.map((c) => c.on);
}

describe(`device-control dashboard at http://${LAN_HOST}/ (simulator)`, () => {
  let running: ServiceProcess;
  beforeAll(async () => {
    // These tests click through every family within a minute: the burst window is widened (the budget, and its
    // error shown on the page, have their own tests).
    running = await startLanService('device-control', { CLOUD_BACKEND: 'simulator', CLOUD_MAX_MESSAGES_PER_MINUTE: '60' });
  }, 60_000);
  afterAll(async () => running?.kill());

  it('shows every device and switches a channel from the page: the device follows, with no failed request or console error', async () => {
    const page = await lan.browser.newPage();
    const trouble = watchTrouble(page);
    await page.goto(`http://${LAN_HOST}:${running.port}/`);
    const lamp = switchOf(page, 'Desk Lamp', 'Desk Lamp');
    await lamp.waitFor();
    const before = await lamp.getAttribute('aria-checked');

    await lamp.click();
    await expect.poll(() => lamp.getAttribute('aria-checked')).toBe(before === 'true' ? 'false' : 'true');

    expect(await deviceState(running.port, 'sim-plug-0001')).toEqual([before !== 'true']);
    expect(await page.getByRole('article').count()).toBe(7);
    await expect
      .poll(() => page.getByRole('status', { name: 'Service status' }).textContent())
      .toMatch(/connected.*Budget per hour: \d+ of 180 left.*Budget per minute/);
    expect(trouble.problems).toEqual([]);
    await page.close();
  }, 60_000);

  it('shows the error body beside a device whose switch fails, and the switch returns to the true state', async () => {
    const page = await lan.browser.newPage();
    const trouble = watchTrouble(page);
    await page.goto(`http://${LAN_HOST}:${running.port}/`);
    const heater = switchOf(page, 'Garage Heater', 'Garage Heater');
    await heater.waitFor();
    const before = await heater.getAttribute('aria-checked');

    await heater.click();
    const alert = cardOf(page, 'Garage Heater').getByRole('alert');
    await alert.waitFor();

    expect(await alert.textContent()).toMatch(/Device not controllable.*\S/);
    await expect.poll(() => heater.getAttribute('aria-checked')).toBe(before);
    expect(await deviceState(running.port, 'sim-plug-0002')).toEqual([null]);
    // The only trouble is the refused command itself.
    expect(trouble.problems.filter((p) => !/409/.test(p))).toEqual([]);
    await page.close();
  }, 60_000);

  it('shows a garage door as a door, never a switch: Open answers "Opening…", and the door\'s push brings "Open"', async () => {
    const page = await lan.browser.newPage();
    const trouble = watchTrouble(page);
    await page.goto(`http://${LAN_HOST}:${running.port}/`);
    const card = cardOf(page, 'Garage Door');
    const state = card.locator('[data-door-state]');
    await expect.poll(() => state.getAttribute('data-door-state')).toMatch(/^(open|closed)$/);
    const action = (await state.getAttribute('data-door-state')) === 'closed' ? 'Open' : 'Close';

    await card.getByRole('button', { name: `${action} Garage Door` }).click();
    await expect.poll(() => state.textContent()).toBe(action === 'Open' ? 'Opening…' : 'Closing…');
    await expect.poll(() => state.textContent(), { timeout: 8_000 }).toBe(action === 'Open' ? 'Open' : 'Closed');

    expect(await card.getByRole('switch').count()).toBe(0);
    expect(trouble.problems).toEqual([]);
    await page.close();
  }, 60_000);

  it('moves the blinds to a position chosen with the keyboard, and shows them arrive', async () => {
    const page = await lan.browser.newPage();
    const trouble = watchTrouble(page);
    await page.goto(`http://${LAN_HOST}:${running.port}/`);
    const card = cardOf(page, 'Bedroom Blinds');
    const state = card.locator('[data-cover-state]');
    await expect.poll(() => state.getAttribute('data-cover-state')).toMatch(/^\d+$/);

    const slider = card.getByRole('slider');
    await slider.focus();
    for (let i = 0; i < 20; i += 1) await page.keyboard.press('ArrowLeft');
    await card.getByRole('button', { name: 'Move Bedroom Blinds to 30%' }).click();
    await expect.poll(() => state.textContent(), { timeout: 8_000 }).toBe('30% open');

    expect(await card.getByRole('switch').count()).toBe(0);
    expect(trouble.problems).toEqual([]);
    await page.close();
  }, 60_000);

  it("sets a light's brightness with the keyboard, and the light has it", async () => {
    const page = await lan.browser.newPage();
    const trouble = watchTrouble(page);
    await page.goto(`http://${LAN_HOST}:${running.port}/`);
    const form = page.getByRole('form', { name: 'Reading Light light' });
    const brightness = form.getByRole('slider', { name: /Brightness/ });
    await brightness.waitFor();

    await brightness.focus();
    await page.keyboard.press('Home');
    for (let i = 0; i < 19; i += 1) await page.keyboard.press('ArrowRight');
    await form.getByRole('button', { name: 'Apply' }).click();
    await expect
      .poll(
        async () =>
          ((await (await fetch(`http://127.0.0.1:${running.port}/devices/sim-bulb-0001/light`)).json()) as { lights: Array<{ brightness: number }> }).lights[0]
            ?.brightness,
      )
      .toBe(20);

    expect(await switchOf(page, 'Reading Light', 'Reading Light').count()).toBe(1);
    expect(trouble.problems).toEqual([]);
    await page.close();
  }, 60_000);

  it("shows an energy plug's power and its last seven days when asked (a read costs budget)", async () => {
    const page = await lan.browser.newPage();
    const trouble = watchTrouble(page);
    await page.goto(`http://${LAN_HOST}:${running.port}/`);
    const card = cardOf(page, 'Desk Lamp');
    await card.getByRole('button', { name: 'Read power' }).click();

    await card.locator('[data-power]').waitFor();
    const days = card.getByRole('list', { name: 'Desk Lamp: energy per day' }).getByRole('listitem');
    await expect.poll(() => days.count()).toBe(7);

    expect(await card.locator('[data-power]').textContent()).toMatch(/^\d+\.\d W$/);
    expect(trouble.problems).toEqual([]);
    await page.close();
  }, 60_000);

  it("reads the devices behind a hub when asked, turns a valve's heating off and sets its target", async () => {
    const page = await lan.browser.newPage();
    const trouble = watchTrouble(page);
    await page.goto(`http://${LAN_HOST}:${running.port}/`);
    const card = cardOf(page, 'Heating Hub');
    await card.getByRole('button', { name: 'Read devices' }).click();
    const heating = card.getByRole('switch', { name: 'Living room valve: heating' });
    await heating.waitFor();
    const valve = async () =>
      (
        (await (await fetch(`http://127.0.0.1:${running.port}/devices/sim-hub-0001/hub`)).json()) as {
          subdevices: Array<{ id: string; on: boolean; targetTemperature: number }>;
        }
      ).subdevices[0];

    const before = await heating.getAttribute('aria-checked');
    await heating.click();
    await expect.poll(() => heating.getAttribute('aria-checked')).toBe(before === 'true' ? 'false' : 'true');
    await card.getByLabel('Target °C').fill('19.5');
    await card.getByRole('button', { name: 'Set Living room valve target' }).click();
    await expect.poll(async () => (await valve())?.targetTemperature).toBe(19.5);

    expect((await valve())?.on).toBe(before !== 'true');
    expect(await card.getByText('Cellar sensor').count()).toBe(1);
    expect(trouble.problems).toEqual([]);
    await page.close();
  }, 60_000);

  it('syncs from its button, passes an axe scan with no serious or critical violation, on desktop and phone', async () => {
    const page = await lan.browser.newPage({ viewport: { width: 1280, height: 800 } });
    const trouble = watchTrouble(page);
    await page.goto(`http://${LAN_HOST}:${running.port}/`);
    await switchOf(page, 'Living Room Strip', 'TV').waitFor();

    await page.getByRole('button', { name: 'Sync' }).click();
    await page.getByText(/Synced: 7 devices/).waitFor();
    // The hub's devices and the plug's power are read on demand: open them so the scan sees them too.
    await cardOf(page, 'Heating Hub').getByRole('button', { name: 'Read devices' }).click();
    await cardOf(page, 'Heating Hub').getByRole('list').waitFor();
    await cardOf(page, 'Desk Lamp').getByRole('button', { name: 'Read power' }).click();
    await cardOf(page, 'Desk Lamp').locator('[data-power]').waitFor();
    const desktop = await seriousAxeViolations(page);
    await page.setViewportSize({ width: 360, height: 740 });
    const phone = await seriousAxeViolations(page);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth);
    await saveScreenshots(page, 'device-control');

    expect({ desktop, phone, overflow, problems: trouble.problems }).toEqual({ desktop: [], phone: [], overflow: false, problems: [] });
    await page.close();
  }, 60_000);
});

describe('device-control dashboard when the account budget is spent', () => {
  let running: ServiceProcess;
  beforeAll(async () => {
    running = await startLanService('device-control', { CLOUD_BACKEND: 'simulator', CLOUD_MAX_MESSAGES_PER_MINUTE: '2' });
  }, 60_000);
  afterAll(async () => running?.kill());

  it('shows the 429 body beside the device and puts the switch back to the true state', async () => {
    const page = await lan.browser.newPage();
    const trouble = watchTrouble(page);
    await page.goto(`http://${LAN_HOST}:${running.port}/`);
    const lamp = switchOf(page, 'Desk Lamp', 'Desk Lamp');
    await lamp.waitFor();
    const alert = cardOf(page, 'Desk Lamp').getByRole('alert');

    // The startup sync used one message of the two per minute; the first switch uses the other.
    for (let i = 0; i < 3 && (await alert.count()) === 0; i += 1) {
      const before = await lamp.getAttribute('aria-checked');
      await lamp.click();
      await expect.poll(async () => (await alert.count()) > 0 || (await lamp.getAttribute('aria-checked')) !== before).toBe(true);
    }
    const truth = (await (await fetch(`http://127.0.0.1:${running.port}/devices/sim-plug-0001`)).json()) as { channels: Array<{ on: boolean | null }> };
    const expected = truth.channels[0]!.on === null ? 'mixed' : String(truth.channels[0]!.on);

    expect(await alert.textContent()).toMatch(/Cloud message budget exhausted: 2 messages per minute.*Retry after/);
    await expect.poll(() => lamp.getAttribute('aria-checked')).toBe(expected);
    expect(trouble.problems.filter((p) => !/429/.test(p))).toEqual([]);
    await page.close();
  }, 60_000);
});

describe('device-control dashboard behind an API key', () => {
  const KEY = 'lan-dashboard-key-4711-0123456789abcdef';
  let running: ServiceProcess;
  beforeAll(async () => {
    running = await startLanService('device-control', { CLOUD_BACKEND: 'simulator', API_KEY: KEY });
  }, 60_000);
  afterAll(async () => running?.kill());

  it('asks for the key once, then lists, switches and streams with it as a header, never in a URL', async () => {
    const page = await lan.browser.newPage();
    const trouble = watchTrouble(page);
    const urls: string[] = [];
    const streamHeaders: Array<string | undefined> = [];
    page.on('request', (req) => {
      urls.push(req.url());
      if (req.url().endsWith('/events')) streamHeaders.push(req.headers()['x-api-key']);
    });
    await page.goto(`http://${LAN_HOST}:${running.port}/`);
    await page.getByLabel('API key').fill(KEY);
    await page.getByRole('button', { name: 'Unlock' }).click();
    const lamp = switchOf(page, 'Desk Lamp', 'Desk Lamp');
    await lamp.waitFor();
    const before = await lamp.getAttribute('aria-checked');
    const problemsBefore = trouble.problems.length;

    await lamp.click();
    await expect.poll(() => lamp.getAttribute('aria-checked')).toBe(before === 'true' ? 'false' : 'true');
    await expect.poll(() => streamHeaders.includes(KEY)).toBe(true);

    expect(await deviceState(running.port, 'sim-plug-0001', KEY)).toEqual([before !== 'true']);
    expect(urls.filter((u) => u.includes(KEY))).toEqual([]);
    // Before the key: the 401s that made the page ask. After it: nothing.
    expect(trouble.problems.slice(0, problemsBefore).every((p) => /401/.test(p))).toBe(true);
    expect(trouble.problems.slice(problemsBefore)).toEqual([]);
    await page.close();
  }, 60_000);
});

describe('device-control dashboard against the emulated Meross cloud', () => {
  let setup: EmulatedSetup;
  beforeAll(async () => {
    setup = await startEmulatedSetup('dashboard', { ALLOWED_HOSTS: LAN_HOST });
  }, 60_000);
  afterAll(async () => setup?.stop());

  it('flips the switch on screen within a second of a press of the physical button, with no reload', async () => {
    const page = await lan.browser.newPage();
    const trouble = watchTrouble(page);
    const port = new URL(setup.service.baseUrl).port;
    await page.goto(`http://${LAN_HOST}:${port}/`);
    const lamp = switchOf(page, 'Desk lamp', 'Desk lamp');
    await expect.poll(() => lamp.getAttribute('aria-checked'), { timeout: 20_000 }).toMatch(/^(true|false)$/);
    await page.getByText('Live: on').waitFor();
    const before = await lamp.getAttribute('aria-checked');
    let navigations = 0;
    page.on('framenavigated', () => (navigations += 1));

    const pressedAt = Date.now();
    setup.emulator.pressButton('plug0000000000000000000000000001', 0);
    await expect.poll(() => lamp.getAttribute('aria-checked'), { interval: 20, timeout: 5_000 }).toBe(before === 'true' ? 'false' : 'true');
    const elapsedMs = Date.now() - pressedAt;

    expect(elapsedMs).toBeLessThan(1_000);
    expect(navigations).toBe(0);
    expect(trouble.problems).toEqual([]);
    await page.close();
  }, 60_000);
});
