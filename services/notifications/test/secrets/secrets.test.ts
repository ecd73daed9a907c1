import { get } from 'node:http';
import { createLogger } from '@homeops/common';
import { afterEach, describe, expect, it } from 'vitest';
import { eventually, sendRaw, type RawRequest } from '@homeops/test-kit';
import { makeStorageDir, removeDir, startRealService } from '../hostile/running-service.js';
import { acceptedAnswer, startFakePushover, type FakeAnswer } from '../faults/fake-pushover.js';
import { API_TOKEN, USER_KEY } from '../pushover/pushover-test-kit.js';
import { PNG } from '../support/files.js';

const API_KEY = 'api-key-secret-Zq81mXw0pLr5-kT4vNq9sWb2y';
const FAMILY_KEY = 'fAmIlYgRoUpKeY0000000000000042';
const SECRETS = { USER_KEY, API_TOKEN, API_KEY, FAMILY_KEY };

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** How the fake Pushover answers, chosen by the message text; error answers echo the credentials back. */
function answerFor(message: string | undefined, user = USER_KEY): FakeAnswer {
  const echo = `token=${API_TOKEN} user=${user}`;
  if (message?.startsWith('reject')) return { status: 400, body: { status: 0, user: 'invalid', errors: [`user key ${user} is invalid (${echo})`] } };
  if (message?.startsWith('quota')) return { status: 429, body: { status: 0, errors: [`over quota for ${API_TOKEN}`] } };
  if (message?.startsWith('crash')) return { status: 500, body: `<html>upstream error for ${echo}</html>` };
  if (message?.startsWith('reset')) return 'reset';
  if (message?.startsWith('hang')) return 'hang';
  return acceptedAnswer();
}

interface Created {
  delivery: { status: string };
}

/** Collects the raw bytes of an event stream until `stop()`, or until the service ends it (`ended`). */
function openStream(port: number, path: string, headers: Record<string, string>) {
  let text = '';
  let end!: () => void;
  const ended = new Promise<void>((resolve) => (end = resolve));
  const req = get({ host: '127.0.0.1', port, path, headers }, (res) => {
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => (text += chunk));
    res.on('close', end);
  });
  req.on('error', end);
  return { text: () => text, ended, stop: () => void req.destroy() };
}

describe('notifications never reveals the provider credentials or the API key', () => {
  it('keeps them out of logs (trace level), response bodies, /health and the event stream', { timeout: 30_000 }, async () => {
    const lines: string[] = [];
    const logger = createLogger({ service: 'notifications', level: 'trace', destination: { write: (line: string) => void lines.push(line) } });
    const pushover = await startFakePushover((form) => answerFor(form.fields.message, form.fields.user));
    cleanups.push(() => pushover.close());
    const dir = await makeStorageDir('notifications-secrets-');
    cleanups.push(() => removeDir(dir));
    const service = await startRealService(
      dir,
      {
        LOG_LEVEL: 'trace',
        API_KEY,
        PROVIDER_USER_KEY: USER_KEY,
        PROVIDER_API_TOKEN: API_TOKEN,
        RECIPIENTS: `family=${FAMILY_KEY}`,
        PROVIDER_API_URL: pushover.url,
        PROVIDER_TIMEOUT_MS: '500',
        DELIVERY_RETRY_MIN_MS: '20',
        DELIVERY_RETRY_MAX_MS: '50',
        DELIVERY_MAX_ATTEMPTS: '2',
      },
      logger,
    );
    cleanups.push(() => service.stop());
    const auth: Array<[string, string]> = [['Authorization', `Bearer ${API_KEY}`]];
    const stream = openStream(service.port, '/notifications/ops/stream', { Authorization: `Bearer ${API_KEY}` });
    cleanups.push(stream.stop);
    await eventually(() => stream.text().includes(': connected'), 'the event stream to open');

    const seen: string[] = [];
    const send = async (request: RawRequest) => {
      const res = await sendRaw(service.port, { ...request, headers: [...(request.headers ?? auth)] });
      // Only what the service wrote: a target the client chose is not the service's to hide.
      seen.push(`${res.status} ${JSON.stringify(res.headers)} ${res.body.toString('utf8')}`);
      return res;
    };
    const create = (body: object) =>
      send({ method: 'POST', target: '/notifications', headers: [...auth, ['Content-Type', 'application/json']], body: JSON.stringify(body) });

    const ids: string[] = [];
    for (const message of ['hello', 'reject me', 'quota me', 'crash me', 'reset me', 'hang me']) {
      const res = await create({ recipient: 'ops', message });
      ids.push((JSON.parse(res.body.toString('utf8')) as { id: string }).id);
    }
    for (const message of ['hello family', 'reject family'])
      ids.push((JSON.parse((await create({ recipient: 'family', message, priority: 2 })).body.toString('utf8')) as { id: string }).id);
    await create({ recipient: 'ops', message: 'with file', attachment: { filename: 'p.png', contentType: 'image/png', data: PNG.toString('base64') } });
    const statusOf = async (id: string) =>
      (JSON.parse((await sendRaw(service.port, { method: 'GET', target: `/notifications/single/${id}`, headers: auth })).body.toString('utf8')) as Created)
        .delivery.status;
    const retried = ids.slice(3, 6); // crash, reset and hang
    await eventually(
      async () => (await Promise.all(retried.map(statusOf))).every((status) => status !== 'pending'),
      'the retries of the 5xx, reset and hang to run out',
    );
    await send({ method: 'GET', target: '/notifications/ops' });
    for (const id of ids) await send({ method: 'GET', target: `/notifications/single/${id}` });
    await send({ method: 'PATCH', target: `/notifications/${ids[0]}/read` });
    await send({ method: 'POST', target: '/notifications/ops/read-all' });
    await send({ method: 'DELETE', target: `/notifications/${ids[1]}` });
    await send({ method: 'GET', target: '/health' });
    await send({ method: 'GET', target: '/openapi.json' });
    // Failures, including ones that carry a secret in the request itself.
    await send({ method: 'GET', target: '/notifications/ops', headers: [['Authorization', `Bearer ${API_TOKEN}`]] });
    await send({ method: 'GET', target: '/notifications/ops', headers: [['X-API-Key', USER_KEY]] });
    await create({ recipient: 'ops', message: 'm', token: API_TOKEN, user: USER_KEY });
    await create({ recipient: 'ops', message: 'x', url: `http://${USER_KEY}:${API_TOKEN}@example.com/${'a'.repeat(600)}` });
    await send({ method: 'POST', target: '/notifications', headers: [...auth, ['Content-Type', 'application/json']], body: `{"token":"${API_TOKEN}"` });
    // The stop ends the stream: everything the service wrote to it has arrived once it ended.
    await service.stop();
    await stream.ended;

    expect(pushover.exchanges.length).toBeGreaterThanOrEqual(6);
    // The recipient map's key went out (and came back echoed in an error), so the search below covers it too.
    expect(pushover.exchanges.some((e) => e.form.fields.user === FAMILY_KEY && e.form.fields.message === 'reject family')).toBe(true);
    expect(stream.text()).toContain('event: created');
    expect(lines.length).toBeGreaterThan(10);
    const captured = { logs: lines.join('\n'), responses: seen.join('\n'), stream: stream.text() };
    // The echoing error answers did reach records, logs and /health (redacted), so the search covered them.
    expect(captured.responses).toMatch(/Pushover rejected the message \(HTTP 400\): user key .* is invalid/);
    expect(captured.responses).toContain('Pushover is unavailable (HTTP 500)');
    const leaks = Object.entries(captured).flatMap(([where, text]) =>
      Object.entries(SECRETS)
        .filter(([, secret]) => text.includes(secret))
        .map(([name, secret]) => `${name} in ${where}: …${text.slice(Math.max(0, text.indexOf(secret) - 200), text.indexOf(secret) + 40)}…`),
    );
    expect(leaks).toEqual([]);
  });
});
