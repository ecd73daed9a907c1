import nock from 'nock';
import { afterEach, describe, expect, it } from 'vitest';
import { PushoverError, PushoverService, type SendNotificationOptions } from '../../src/pushover-service.js';
import { PUSHOVER_SOUNDS } from '../../src/adapters/pushover/sounds.js';
import { API_TOKEN, USER_KEY, accepted, interceptMessage, readForm, rejectionOf } from './pushover-test-kit.js';

const service = (): PushoverService => new PushoverService({ userKey: USER_KEY, apiToken: API_TOKEN, timeoutMs: 2000 });

const pushoverErrorOf = (promise: Promise<unknown>) => rejectionOf(promise, PushoverError);

describe('PushoverService.sendNotification', () => {
  afterEach(() => {
    // Every test that expected a request consumed it; invalid input never reached the network.
    expect(nock.pendingMocks()).toEqual([]);
    nock.cleanAll();
  });

  it("resolves with Pushover's request id for priorities below 2", async () => {
    interceptMessage(accepted('6fd5b3a8-request'));

    const receipt = await service().sendNotification({ message: 'Washing machine done', title: 'Laundry', priority: 1 });

    expect(receipt).toBe('6fd5b3a8-request');
  });

  it("resolves with Pushover's receipt id for priority 2, sending retry and expire", async () => {
    const sent = interceptMessage(accepted('req-9', { receipt: 'rLPvNZWf8nF5Tn6uv3vDA7fUnDjX1u' }));

    const receipt = await service().sendNotification({ message: 'Smoke detected', title: 'Alarm', priority: 2, sound: 'siren', url: 'https://cam.local' });

    expect(receipt).toBe('rLPvNZWf8nF5Tn6uv3vDA7fUnDjX1u');
    expect((await readForm(sent[0])).fields).toMatchObject({ priority: '2', retry: '60', expire: '3600', sound: 'siren', url: 'https://cam.local' });
  });

  it('sends priority 0 when no priority is given', async () => {
    const sent = interceptMessage(accepted());

    await service().sendNotification({ message: 'Hello' });

    expect((await readForm(sent[0])).fields.priority).toBe('0');
  });

  it("rejects a 400 with PushoverError REJECTED carrying the status and Pushover's errors", async () => {
    interceptMessage({ status: 400, body: { errors: ['application token is invalid'], status: 0, token: 'invalid' } });

    const error = await pushoverErrorOf(service().sendNotification({ message: 'Hello' }));

    expect(error).toMatchObject({ code: 'REJECTED', status: 400, errors: ['application token is invalid'], retryable: false });
  });

  it('rejects 429 with PushoverError QUOTA_EXHAUSTED, not retryable', async () => {
    interceptMessage({ status: 429, body: { errors: ['application is over its monthly limit'], status: 0 } });

    const error = await pushoverErrorOf(service().sendNotification({ message: 'Hello' }));

    expect(error).toMatchObject({ code: 'QUOTA_EXHAUSTED', status: 429, retryable: false, quotaExhausted: true });
  });

  it('rejects a 503 with PushoverError UNAVAILABLE, retryable', async () => {
    interceptMessage({ status: 503, body: '<html>maintenance</html>' });

    const error = await pushoverErrorOf(service().sendNotification({ message: 'Hello' }));

    expect(error).toMatchObject({ code: 'UNAVAILABLE', status: 503, retryable: true });
  });

  it('accepts every limit at its maximum', async () => {
    const sent = interceptMessage(accepted());
    const png = Buffer.alloc(5 * 1024 * 1024, 1);

    await service().sendNotification({
      message: '😀'.repeat(1024),
      title: 't'.repeat(250),
      url: `https://example.com/${'u'.repeat(512 - 20)}`,
      urlTitle: 'l'.repeat(100),
      priority: -2,
      ttl: 1,
      device: 'phone,tablet',
      attachment: { filename: 'big.png', contentType: 'image/png', data: png },
    });

    const form = await readForm(sent[0]);
    expect([...(form.fields.message ?? '')]).toHaveLength(1024);
    expect(form.files[0]?.data.length).toBe(png.length);
  });

  const invalid: Array<[string, Partial<SendNotificationOptions> & Record<string, unknown>, RegExp]> = [
    ['an empty message', { message: '' }, /message must be 1–1024/],
    ['a message of 1025 characters', { message: 'm'.repeat(1025) }, /message must be 1–1024/],
    ['a title of 251 characters', { title: 't'.repeat(251) }, /title must be 0–250/],
    ['a url of 513 characters', { url: `https://example.com/${'u'.repeat(513 - 20)}` }, /url must be 1–512/],
    ['a javascript: url', { url: 'javascript:alert(1)' }, /url must be a URL Pushover opens/],
    ['a urlTitle of 101 characters', { urlTitle: 'l'.repeat(101) }, /urlTitle must be 1–100/],
    ['priority 3', { priority: 3 as never }, /priority must be -2…2/],
    ['priority -3', { priority: -3 as never }, /priority must be -2…2/],
    ['priority 1.5', { priority: 1.5 as never }, /priority must be an integer/],
    ['an unknown sound', { sound: 'trumpet' as never }, /sound must be one of pushover, bike/],
    ['ttl 0', { ttl: 0 }, /ttl must be positive/],
    ['retry below 30 seconds', { priority: 2, retry: 29 }, /retry must be at least 30/],
    ['expire above 10800 seconds', { priority: 2, expire: 10801 }, /expire must be at most 10800/],
    ['a device name with spaces', { device: 'my phone' }, /device must be/],
    ['a non-image attachment', { attachment: { filename: 'a.pdf', contentType: 'application/pdf', data: Buffer.from('%PDF') } }, /image/],
    ['an attachment over 5 MiB', { attachment: { filename: 'a.png', contentType: 'image/png', data: Buffer.alloc(5 * 1024 * 1024 + 1) } }, /5 MiB/],
    ['an unknown option', { urltitle: 'typo' }, /urltitle/],
    ['a message that is not a string', { message: 42 as never }, /^message: /],
  ];

  it.each(invalid)('rejects %s with INVALID_INPUT before sending anything', async (_what, options, reason) => {
    const error = await pushoverErrorOf(service().sendNotification({ message: 'Hello', ...options } as SendNotificationOptions));

    expect(error).toMatchObject({ code: 'INVALID_INPUT', status: undefined, retryable: false });
    expect(error.errors.join('\n')).toMatch(reason);
  });
});

describe('PushoverService', () => {
  it('lists the 23 built-in sounds, and a copy the caller cannot corrupt', () => {
    const sounds = service().getSounds();
    sounds.pop();

    expect(service().getSounds()).toHaveLength(23);
    expect(service().getSounds()).toEqual([...PUSHOVER_SOUNDS]);
    expect(service().getSounds()).toEqual(expect.arrayContaining(['pushover', 'siren', 'vibrate', 'none']));
  });

  it('refuses to be built without a user key or API token, naming what is missing', () => {
    const build = () => new PushoverService({ userKey: '', apiToken: ' ' });

    expect(build).toThrow(PushoverError);
    expect(build).toThrow(/userKey and apiToken/);
  });

  it('refuses an API URL that is not http(s), without echoing the URL', () => {
    const build = () => new PushoverService({ userKey: USER_KEY, apiToken: API_TOKEN, apiUrl: 'ftp://user:s3cret@proxy.local' });

    expect(build).toThrow(PushoverError);
    expect(build).toThrow(/http\(s\)/);
    expect(build).not.toThrow(/s3cret/);
  });

  it('refuses a timeout that is not a positive number', () => {
    expect(() => new PushoverService({ userKey: USER_KEY, apiToken: API_TOKEN, timeoutMs: 0 })).toThrow(/timeoutMs/);
  });
});
