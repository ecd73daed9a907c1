import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { eventually, metricValue } from '@homeops/test-kit';
import request from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';
import { parseRecipientsFile } from '../../src/adapters/pushover/recipient-map.js';
import { newNotificationId } from '../../src/domain/notification-id.js';
import type { NotificationRecord } from '../../src/domain/notification.js';
import { startFakePushover, type FakeAnswer } from '../faults/fake-pushover.js';
import { startHouseholdApp } from '../pushover/household-kit.js';
import type { Config } from '../../src/config.js';
import type { NotificationRepository } from '../../src/domain/notification-repository.js';
import { makeTempDir, openRealStorage } from '../support/test-app.js';
import { startFakeNtfy } from './fake-ntfy.js';
import { startSmtpSink } from './smtp-sink.js';

const ALICE = 'aLiCe0000000000000000000000001';
const BOB = 'bOb00000000000000000000000002b';
const NTFY_TOKEN = 'tk_secret0ntfy0token0000000000';
const SMTP_PASSWORD = 'smtp-pass-w0rd';

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/** Pushover answering `answer` to every message, a fake ntfy and an SMTP sink. */
async function startFakes(answer: () => FakeAnswer, ntfyOptions: { failures?: number } = {}) {
  // Key validations (no message) succeed; every message gets `answer`.
  const pushover = await startFakePushover((form) => (form.fields.message === undefined ? { status: 200, body: { status: 1, devices: [] } } : answer()));
  const ntfy = await startFakeNtfy({ token: NTFY_TOKEN, ...ntfyOptions });
  const smtp = await startSmtpSink({ user: 'homeops', pass: SMTP_PASSWORD });
  closers.push(pushover.close, ntfy.close, smtp.close);
  return { pushover, ntfy, smtp };
}

/** Pushover answering `answer` to every message, a fake ntfy, an SMTP sink, and alice with both as fallbacks. */
async function household(answer: () => FakeAnswer, ntfyOptions: { failures?: number } = {}, smtpPassword = SMTP_PASSWORD) {
  return startAlice(await startFakes(answer, ntfyOptions), { smtpPassword });
}

/** The service with alice's fallbacks on `fakes`; on `repository` when given (a restart on the same history). */
async function startAlice(
  fakes: Awaited<ReturnType<typeof startFakes>>,
  options: { smtpPassword?: string; repository?: NotificationRepository; config?: Partial<Config> } = {},
) {
  const { pushover, ntfy, smtp } = fakes;
  const smtpPassword = options.smtpPassword ?? SMTP_PASSWORD;
  const ntfyTarget = `${ntfy.url.replace(/^http/, 'ntfy+http')}/alice-alarms?token=${NTFY_TOKEN}`;
  const text = `recipients:\n  alice:\n    key: ${ALICE}\n    fallback:\n      - ${ntfyTarget}\n      - mailto:alice@example.com\n  bob: ${BOB}\n`;
  const file = join(await makeTempDir(), 'recipients.yaml');
  await writeFile(file, text);
  const map = parseRecipientsFile(text, file);
  const app = await startHouseholdApp(
    pushover.url,
    { recipients: { recipients: map.recipients, unmapped: 'refuse' } },
    {
      config: {
        RECIPIENTS_FILE: file,
        DELIVERY_MAX_ATTEMPTS: 2,
        SMTP_URL: `smtp://homeops:${smtpPassword}@127.0.0.1:${smtp.port}`,
        SMTP_FROM: 'homeops@example.com',
        ...options.config,
      },
      ...(options.repository ? { repository: options.repository } : {}),
    },
  );
  const messages = () => pushover.exchanges.filter((e) => e.form.fields.message !== undefined);
  return { ...app, pushover, messages, ntfy, smtp };
}

const stored = async (t: { repository: { get(id: string): Promise<NotificationRecord | undefined> } }, id: string) => (await t.repository.get(id))!;

const bothSent = (record: NotificationRecord) =>
  record.delivery.channels?.filter((c) => c.channel !== 'pushover').every((c) => c.status === 'sent') === true && record.delivery.channels.length === 3;

describe('fallback targets when Pushover cannot deliver', () => {
  it('on a 429 ends Pushover as failed with reason quota and reaches ntfy (mapped priority) and the mailbox once each', async () => {
    const t = await household(() => ({ status: 429, body: { status: 0, errors: ['application has exceeded its monthly message limit'] } }));

    const res = await request(t.app)
      .post('/notifications')
      .send({ recipient: 'alice', title: 'Tür offen', message: 'The front door opened', priority: 1, url: 'https://cam.lan/door' });
    expect(res.status).toBe(201);
    const record = await eventually(async () => {
      const r = await stored(t, res.body.id);
      return bothSent(r) && r;
    }, 'both fallbacks sent');

    expect(record.delivery).toMatchObject({ status: 'failed', attempts: 1, error: expect.stringMatching(/^quota: /) });
    expect(record.delivery.channels).toEqual([
      { channel: 'pushover', status: 'failed', attempts: 1, at: expect.any(String), error: expect.stringMatching(/^quota: /) },
      { channel: 'ntfy', target: expect.stringMatching(/\/alice-alarms$/), status: 'sent', attempts: 1, at: expect.any(String) },
      { channel: 'email', target: 'alice@example.com', status: 'sent', attempts: 1, at: expect.any(String) },
    ]);
    expect(t.messages()).toHaveLength(1);
    expect(t.ntfy.published).toEqual([
      {
        topic: 'alice-alarms',
        title: 'Tür offen',
        priority: '4',
        tags: undefined,
        click: 'https://cam.lan/door',
        authorization: `Bearer ${NTFY_TOKEN}`,
        body: 'The front door opened',
      },
    ]);
    expect(t.smtp.mails).toHaveLength(1);
    expect(t.smtp.mails[0]).toMatchObject({ from: 'homeops@example.com', to: ['alice@example.com'], subject: 'Tür offen' });
    expect(t.smtp.mails[0]!.contentType).toMatch(/^text\/plain/);
    expect(t.smtp.mails[0]!.raw).toContain('The front door opened');

    // The API shows the channels; /health each target's last result, never the token or the SMTP password.
    const read = await request(t.app).get(`/notifications/single/${res.body.id}`);
    expect(read.body.delivery.channels).toHaveLength(3);
    const health = await request(t.app).get('/health');
    expect(health.body.provider.fallback).toEqual([
      { recipient: 'alice', channel: 'ntfy', name: expect.stringMatching(/\/alice-alarms$/), lastResult: 'sent', at: expect.any(String) },
      { recipient: 'alice', channel: 'email', name: 'alice@example.com', lastResult: 'sent', at: expect.any(String) },
    ]);
    expect(JSON.stringify(health.body)).not.toContain(NTFY_TOKEN);
    expect(JSON.stringify(health.body)).not.toContain(SMTP_PASSWORD);
    expect(JSON.stringify(record)).not.toContain(NTFY_TOKEN);

    // Counted by channel: Pushover's failure, and one send each to ntfy and mail.
    const metrics = (await request(t.app).get('/metrics').expect(200)).text;
    const count = (channel: string, status: string) => metricValue(metrics, 'homeops_channel_deliveries_total', { channel, status });
    expect([count('pushover', 'failed'), count('ntfy', 'sent'), count('email', 'sent'), count('ntfy', 'failed'), count('pushover', 'sent')]).toEqual([
      1, 1, 1, 0, 0,
    ]);
    expect(metricValue(metrics, 'homeops_deliveries_total', { status: 'failed' })).toBe(1);
  });

  it('on 500s hands over once Pushover is out of retries, and a failing ntfy is retried with backoff until sent once', async () => {
    const t = await household(() => ({ status: 500, body: { status: 0, errors: ['internal error'] } }), { failures: 1 });

    const res = await request(t.app).post('/notifications').send({ recipient: 'alice', title: 'Leak', message: 'Water under the sink', priority: -1 });
    const record = await eventually(async () => {
      const r = await stored(t, res.body.id);
      return bothSent(r) && r;
    }, 'both fallbacks sent');

    expect(t.messages()).toHaveLength(2);
    expect(record.delivery).toMatchObject({ status: 'failed', attempts: 2, error: expect.stringMatching(/^Gave up after 2 attempts/) });
    expect(record.delivery.channels).toEqual([
      { channel: 'pushover', status: 'failed', attempts: 2, at: expect.any(String), error: expect.stringMatching(/^Gave up/) },
      { channel: 'ntfy', target: expect.any(String), status: 'sent', attempts: 2, at: expect.any(String) },
      { channel: 'email', target: 'alice@example.com', status: 'sent', attempts: 1, at: expect.any(String) },
    ]);
    expect(t.ntfy.published.map((p) => [p.title, p.priority, p.body])).toEqual([['Leak', '2', 'Water under the sink']]);
    expect(t.smtp.mails.map((m) => m.subject)).toEqual(['Leak']);
  });

  it('records a mail server that refuses the login as failed after its attempts, never showing the password', async () => {
    const wrong = 'not-the-smtp-pass';
    const t = await household(() => ({ status: 429, body: { status: 0, errors: ['quota'] } }), {}, wrong);
    const res = await request(t.app).post('/notifications').send({ recipient: 'alice', title: 'Smoke', message: 'Kitchen' });
    const record = await eventually(async () => {
      const r = await stored(t, res.body.id);
      return r.delivery.channels?.[2]?.status === 'failed' && r;
    }, 'the mail target failed for good');
    expect(record.delivery.channels?.[1]).toMatchObject({ channel: 'ntfy', status: 'sent', attempts: 1 });
    expect(record.delivery.channels?.[2]).toEqual({
      channel: 'email',
      target: 'alice@example.com',
      status: 'failed',
      attempts: 2,
      at: expect.any(String),
      error: expect.stringMatching(/^mail to alice@example.com: .*(auth|Invalid)/i),
    });
    expect(t.smtp.mails).toEqual([]);
    const health = await request(t.app).get('/health');
    expect(health.body.status).toBe('degraded');
    expect(health.body.provider.fallback[1]).toMatchObject({ name: 'alice@example.com', lastResult: 'failed' });
    expect(JSON.stringify([record, health.body])).not.toContain(wrong);
  });

  it('sends nothing to the fallbacks when Pushover delivers, and a recipient without fallbacks has no channels', async () => {
    const t = await household(() => ({ status: 200, body: { status: 1, request: 'r-1' } }));
    const alice = await request(t.app).post('/notifications').send({ recipient: 'alice', title: 'Bins', message: 'Bins out tonight' });
    const bob = await request(t.app).post('/notifications').send({ recipient: 'bob', title: 'Bins', message: 'Bins out tonight' });
    expect(alice.body.delivery.status).toBe('sent');
    expect(alice.body.delivery.channels).toEqual([{ channel: 'pushover', status: 'sent', attempts: 1, at: expect.any(String) }]);
    expect(bob.body.delivery).toEqual({ status: 'sent', attempts: 1, request: 'r-1', lastAttemptAt: expect.any(String), to: 'bob' });
    expect(t.ntfy.published).toEqual([]);
    expect(t.smtp.mails).toEqual([]);
  });

  it('resumes a target still pending when the service stopped: sent once at the next start, the sent one never again', async () => {
    const fakes = await startFakes(() => ({ status: 429, body: { status: 0, errors: ['quota'] } }), { failures: 1 });
    const { repository } = await openRealStorage();
    // Retries far apart: the service stops while ntfy waits for its second attempt.
    const config = { DELIVERY_RETRY_MIN_MS: 600_000, DELIVERY_RETRY_MAX_MS: 1_200_000 };
    const first = await startAlice(fakes, { repository, config });
    const res = await request(first.app).post('/notifications').send({ recipient: 'alice', title: 'Leak', message: 'Water under the sink', priority: 1 });
    await eventually(async () => {
      const channels = (await stored(first, res.body.id)).delivery.channels;
      return channels?.[1]?.status === 'pending' && channels[1].attempts === 1 && channels[2]?.status === 'sent';
    }, 'ntfy waiting for its retry, the mail sent');
    await first.stop();
    expect(fakes.ntfy.published).toEqual([]);

    const second = await startAlice(fakes, { repository, config });
    const record = await eventually(async () => {
      const r = await stored(second, res.body.id);
      return bothSent(r) && r;
    }, 'ntfy sent after the restart');
    await second.stop();
    // A third start finds nothing left to send.
    await startAlice(fakes, { repository, config });

    expect(record.delivery.channels).toEqual([
      { channel: 'pushover', status: 'failed', attempts: 1, at: expect.any(String), error: expect.stringMatching(/^quota: /) },
      { channel: 'ntfy', target: expect.stringMatching(/\/alice-alarms$/), status: 'sent', attempts: 2, at: expect.any(String) },
      { channel: 'email', target: 'alice@example.com', status: 'sent', attempts: 1, at: expect.any(String) },
    ]);
    expect((await repository.pending()).map((r) => r.id)).toEqual([]);
    expect(fakes.ntfy.published.map((p) => [p.title, p.priority, p.body])).toEqual([['Leak', '4', 'Water under the sink']]);
    expect(fakes.smtp.mails.map((m) => m.subject)).toEqual(['Leak']);
    expect(fakes.pushover.exchanges.filter((e) => e.form.fields.message !== undefined)).toHaveLength(1);
  });

  it('resumes the targets of a hand-over stored just before a stop, none of them tried yet', async () => {
    const fakes = await startFakes(() => ({ status: 429, body: { status: 0, errors: ['quota'] } }));
    const { repository } = await openRealStorage();
    const at = new Date().toISOString();
    const id = newNotificationId(new Date(at));
    // As the hand-over's one write leaves it: Pushover failed, every target due and none tried.
    await repository.insert({
      id,
      recipient: 'alice',
      title: 'Smoke',
      message: 'Kitchen smoke alarm',
      priority: 0,
      read: false,
      readAt: null,
      createdAt: at,
      delivery: {
        status: 'failed',
        attempts: 1,
        to: 'alice',
        error: 'quota: Pushover answered 429; handed to the fallback',
        lastAttemptAt: at,
        channels: [
          { channel: 'pushover', status: 'failed', attempts: 1, at, error: 'quota: Pushover answered 429; handed to the fallback' },
          { channel: 'ntfy', target: `${new URL(fakes.ntfy.url).host}/alice-alarms`, status: 'pending', attempts: 0, at },
          { channel: 'email', target: 'alice@example.com', status: 'pending', attempts: 0, at },
        ],
      },
    });

    const t = await startAlice(fakes, { repository });
    await eventually(async () => bothSent(await stored(t, id)), 'both targets sent');

    expect(fakes.ntfy.published.map((p) => p.body)).toEqual(['Kitchen smoke alarm']);
    expect(fakes.smtp.mails.map((m) => m.subject)).toEqual(['Smoke']);
    expect(fakes.pushover.exchanges.filter((e) => e.form.fields.message !== undefined)).toEqual([]);
  });
});
