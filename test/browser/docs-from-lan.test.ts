import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LAN_HOST, launchLanBrowser, startLanService, watchTrouble } from './lan-browser.js';
import type { ServiceProcess } from '../../packages/test-kit/src/index.js';

const services: Array<{ name: 'device-control' | 'notifications'; env: Record<string, string>; operations: string[] }> = [
  { name: 'device-control', env: { CLOUD_BACKEND: 'simulator' }, operations: ['GET /devices', 'POST /devices/{uuid}/toggle'] },
  { name: 'notifications', env: {}, operations: ['POST /notifications', 'GET /notifications/{recipient}'] },
];

let lan: Awaited<ReturnType<typeof launchLanBrowser>>;
beforeAll(async () => {
  lan = await launchLanBrowser();
}, 60_000);
afterAll(async () => lan?.close());

for (const service of services) {
  describe(`${service.name} /docs opened from another machine of the LAN (plain HTTP, ${LAN_HOST})`, () => {
    let running: ServiceProcess;
    beforeAll(async () => {
      const storage = service.name === 'notifications' ? { STORAGE_PATH: 'data/notifications.yaml' } : {};
      running = await startLanService(service.name, { ...service.env, ...storage });
    }, 60_000);
    afterAll(async () => running?.kill());

    it('renders every operation with no failed request, no error response and no console error', async () => {
      const page = await lan.browser.newPage();
      const trouble = watchTrouble(page);

      await page.goto(`http://${LAN_HOST}:${running.port}/docs`, { waitUntil: 'load', timeout: 30_000 });
      const rendered = await page
        .locator('.opblock')
        .first()
        .waitFor({ timeout: 15_000 })
        .then(
          () => true,
          () => false,
        );

      expect({ rendered, problems: trouble.problems }).toEqual({ rendered: true, problems: [] });

      for (const operation of service.operations) {
        const [method, path] = operation.split(' ') as [string, string];
        const block = page.locator(`.opblock-${method.toLowerCase()}`).filter({ has: page.locator(`[data-path="${path}"]`) });
        await expect(block.first().isVisible(), operation).resolves.toBe(true);
      }
      await page.close();
    }, 60_000);
  });
}
