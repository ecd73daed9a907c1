import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, within } from '@homeops/test-kit';
import type { MerossEmulator } from '../emulator/meross-emulator.js';
import { startEmulatedSetup, type EmulatedSetup } from './emulated-setup.js';
import type { EmulatedService } from './service-process.js';

// One device watch through the real meross-cloud library: src/main.ts (CLOUD_BACKEND=meross) against the emulated
// cloud, its watch notifier (NOTIFY_URL) pointed at a recording webhook here. The MerossCloud adapter only runs in a
// process that trusts the emulator's CA (NODE_EXTRA_CA_CERTS), so the watch runs in the service process, not in this one.

const PLUG = 'plug0000000000000000000000000001';

/** What the service posted to the notification service's generic webhook (HookNotifier). */
interface Hook {
  recipient: string | null;
  id: string;
  status: 'firing' | 'resolved';
  title: string;
  message: string;
  priority: number;
}

/** A stand-in for the notification service that keeps every webhook it receives and answers 200. */
async function startHookRecorder(): Promise<{ url: string; hooks: Hook[]; firstHook: Promise<void>; close(): Promise<void> }> {
  const hooks: Hook[] = [];
  let received!: () => void;
  const firstHook = new Promise<void>((resolve) => (received = resolve));
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://localhost');
      if (req.method === 'POST' && url.pathname === '/hooks/generic') {
        hooks.push({ recipient: url.searchParams.get('recipient'), ...(JSON.parse(Buffer.concat(chunks).toString('utf8')) as Omit<Hook, 'recipient'>) });
        received();
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
      } else {
        res.writeHead(404).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    hooks,
    firstHook,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('a device watch against the emulated Meross cloud, through the real meross-cloud library', { timeout: 30_000 }, () => {
  let setup: EmulatedSetup | undefined;
  let recorder: Awaited<ReturnType<typeof startHookRecorder>> | undefined;
  let emulator: MerossEmulator;
  let service: EmulatedService;

  beforeAll(async () => {
    recorder = await startHookRecorder();
    setup = await startEmulatedSetup('watch', { NOTIFY_URL: recorder.url, NOTIFY_TIMEOUT_MS: '2000' });
    ({ emulator, service } = setup);
    await eventually(
      async () => {
        const devices = (await service.request('GET', '/devices')).body as Array<{ uuid: string; controllable: boolean }>;
        // Controllable: its broker acknowledged the subscriptions, so the plug's pushes are heard.
        return devices.find((d) => d.uuid === PLUG)?.controllable === true;
      },
      { what: 'the plug to be listed and controllable', timeoutMs: 15_000 },
    );
  }, 40_000);

  async function watchState(): Promise<string | undefined> {
    const { body } = await service.request('GET', '/watches');
    return (body as { watches: Array<{ name: string; state: string }> }).watches.find((w) => w.name === 'plug-offline')?.state;
  }

  afterAll(async () => {
    await setup?.stop();
    await recorder?.close();
  });

  it('sends one firing when the plug has been offline for the watch minutes, and one resolved for that episode once it is back', async () => {
    const hooks = recorder!.hooks;
    const put = await service.request('PUT', '/watches/plug-offline', {
      condition: { kind: 'offline', device: PLUG, minutes: 0.02 },
      notify: { recipient: 'family', priority: 1 },
      clearSeconds: 0,
    });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ name: 'plug-offline', state: 'quiet', messagesPerHour: 0 });

    // The plug drops off: its broker pushes Appliance.System.Online (status 2), the library tells the adapter.
    // Not before the 0.02 minutes (1.2 s) the condition must hold.
    await within([1_200, 10_000], 'the firing webhook', () => {
      emulator.setOnline(PLUG, false);
      return recorder!.firstHook;
    });
    await eventually(async () => (await watchState()) === 'firing', 'GET /watches to show the watch firing');
    expect(hooks).toEqual([
      {
        recipient: 'family',
        // A random episode id (128 bits), never the time the episode began.
        id: expect.stringMatching(/^watch-plug-offline-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
        status: 'firing',
        title: 'Desk lamp is offline',
        message: 'Offline for more than 0.02 minutes',
        priority: 1,
      },
    ]);

    // Back online: with clearSeconds 0 the episode ends at once.
    emulator.setOnline(PLUG, true);
    await eventually(() => hooks.length > 1, { what: 'the resolved webhook', timeoutMs: 10_000 });
    await eventually(async () => (await watchState()) === 'quiet', 'GET /watches to show the watch quiet');
    expect(hooks.map((h) => [h.status, h.id])).toEqual([
      ['firing', hooks[0]!.id],
      ['resolved', hooks[0]!.id],
    ]);
    expect(hooks[1]).toMatchObject({ recipient: 'family', title: 'Desk lamp is offline', message: 'Desk lamp is offline: over' });
  });
});
