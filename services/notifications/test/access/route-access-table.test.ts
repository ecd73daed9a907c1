import { routeTableOf, type Grant, type RouteEntry } from '@homeops/common';
import { eventually } from '@homeops/test-kit';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/index.js';
import { parseConfig } from '../../src/config.js';
import { FakePushProvider, permanent } from '../fakes/fake-push.provider.js';
import { InMemoryAttachmentStore } from '../fakes/in-memory-attachment.store.js';
import { InMemoryNotificationRepository } from '../fakes/in-memory-notification.repository.js';
import { PNG } from '../support/files.js';
import { silentLogger } from '../support/test-app.js';
import { API_KEY, buildKeyedApp, issueToken, send, storeNotification, UNKNOWN_TOKEN, type AccessRequest, type KeyedApp } from './access-kit.js';

/**
 * How a route's recipient limit applies: `named`, the recipient is in the path or body (403 beyond the limit); `stored`,
 * the stored notification's recipient (404 beyond it, as for an unknown id); `listing`, the answer only holds what the
 * limit reaches (always 2xx); `none`, the route has no recipient.
 */
type Limit = 'named' | 'stored' | 'listing' | 'none';

/** What one cell needs, made with the API key when asked for: fresh for every cell, so a DELETE cannot spoil the next. */
interface Fixture {
  recipient: string;
  /** A notification of the recipient with an attachment and a failed delivery (so it can be resent). */
  notification(): Promise<string>;
  /** A token to change, rotate or revoke. */
  token(): Promise<string>;
  /** The key of a scheduled send, or the name of a heartbeat, of the recipient. */
  plan(kind: 'send' | 'heartbeat'): Promise<string>;
}

/** A request an admin would see succeed. */
interface Example {
  limit: Limit;
  request(fixture: Fixture): Promise<Omit<AccessRequest, 'method' | 'auth'>>;
  /** The code of a 404 beyond the limit (default NOTIFICATION_NOT_FOUND). */
  notFound?: string;
}

const example = (limit: Limit, request: Example['request'], notFound?: string): Example => ({ limit, request, ...(notFound ? { notFound } : {}) });
const fresh = () => `t-${Math.random().toString(36).slice(2, 10)}`;
const at = (target: string) => () => Promise.resolve({ target });

// One valid request per route of the table, by `METHOD path`. A route without one fails the test below: add it here.
const EXAMPLES: Record<string, Example> = {
  'GET /health': example('none', at('/health')),
  'GET /metrics': example('none', at('/metrics')),
  'GET /auth/me': example('none', at('/auth/me')),
  'GET /tokens': example('none', at('/tokens')),
  'POST /tokens': example('none', () => Promise.resolve({ target: '/tokens', body: { label: 'made by the table', scopes: ['notifications:read'] } })),
  'PATCH /tokens/{id}': example('none', async (f) => ({ target: `/tokens/${await f.token()}`, body: { label: 'renamed by the table' } })),
  'POST /tokens/{id}/rotate': example('none', async (f) => ({ target: `/tokens/${await f.token()}/rotate` })),
  'DELETE /tokens/{id}': example('none', async (f) => ({ target: `/tokens/${await f.token()}` })),
  'GET /sounds': example('none', at('/sounds')),
  'POST /hooks/{template}': example('named', (f) =>
    Promise.resolve({
      target: `/hooks/generic?recipient=${f.recipient}`,
      body: { title: 'disk', message: 'disk full', status: 'firing', id: `${f.recipient}-disk` },
    }),
  ),
  'POST /notifications': example('named', (f) => Promise.resolve({ target: '/notifications', body: { recipient: f.recipient, message: 'from the table' } })),
  'GET /notifications/{recipient}': example('named', (f) => Promise.resolve({ target: `/notifications/${f.recipient}` })),
  'POST /notifications/{recipient}/read-all': example('named', (f) => Promise.resolve({ target: `/notifications/${f.recipient}/read-all` })),
  'GET /notifications/{recipient}/stream': example('named', (f) => Promise.resolve({ target: `/notifications/${f.recipient}/stream` })),
  'GET /notifications/single/{id}': example('stored', async (f) => ({ target: `/notifications/single/${await f.notification()}` })),
  'GET /notifications/single/{id}/attachment': example('stored', async (f) => ({ target: `/notifications/single/${await f.notification()}/attachment` })),
  'PATCH /notifications/{id}/read': example('stored', async (f) => ({ target: `/notifications/${await f.notification()}/read` })),
  'PATCH /notifications/{id}/unread': example('stored', async (f) => ({ target: `/notifications/${await f.notification()}/unread` })),
  'POST /notifications/{id}/resend': example('stored', async (f) => ({ target: `/notifications/${await f.notification()}/resend` })),
  'DELETE /notifications/{id}': example('stored', async (f) => ({ target: `/notifications/${await f.notification()}` })),
  'GET /scheduled': example('listing', at('/scheduled')),
  'PUT /scheduled/{key}': example('named', (f) =>
    Promise.resolve({ target: `/scheduled/${fresh()}`, body: { recipient: f.recipient, message: 'later', delaySeconds: 3600 } }),
  ),
  'DELETE /scheduled/{key}': example('stored', async (f) => ({ target: `/scheduled/${await f.plan('send')}` }), 'PLAN_NOT_FOUND'),
  'GET /heartbeats': example('listing', at('/heartbeats')),
  'PUT /heartbeats/{name}': example('named', (f) =>
    Promise.resolve({ target: `/heartbeats/${fresh()}`, body: { intervalSeconds: 3600, notification: { recipient: f.recipient, message: 'missed' } } }),
  ),
  'GET /heartbeats/{name}/ping': example('stored', async (f) => ({ target: `/heartbeats/${await f.plan('heartbeat')}/ping` }), 'PLAN_NOT_FOUND'),
  'POST /heartbeats/{name}/ping': example('stored', async (f) => ({ target: `/heartbeats/${await f.plan('heartbeat')}/ping` }), 'PLAN_NOT_FOUND'),
  'DELETE /heartbeats/{name}': example('stored', async (f) => ({ target: `/heartbeats/${await f.plan('heartbeat')}` }), 'PLAN_NOT_FOUND'),
  'GET /recipients': example('listing', at('/recipients')),
  'GET /events': example('listing', at('/events')),
};

/** Who calls: nobody, a token no one issued, the key, or a token with these grants. */
type Caller = { name: string; kind: 'none' | 'unknown' | 'key' } | { name: string; kind: 'token'; grants: Grant[] };

const CALLERS: Caller[] = [
  { name: 'no key', kind: 'none' },
  { name: 'an unknown token', kind: 'unknown' },
  { name: 'the API key', kind: 'key' },
  { name: 'an admin token', kind: 'token', grants: [{ scope: 'admin' }] },
  { name: 'a metrics token', kind: 'token', grants: [{ scope: 'metrics' }] },
  { name: 'a send token', kind: 'token', grants: [{ scope: 'notifications:send' }] },
  { name: 'a read token', kind: 'token', grants: [{ scope: 'notifications:read' }] },
  { name: "alice's read token", kind: 'token', grants: [{ scope: 'notifications:read', recipients: ['alice'] }] },
  { name: "alice's send token", kind: 'token', grants: [{ scope: 'notifications:send', recipients: ['alice'] }] },
];

const RECIPIENTS = ['alice', 'bob'];

type Answer = '2xx' | 401 | 403 | 404;

/** What the access of the route and the limits of the caller say the answer is. */
function expectedAnswer(entry: RouteEntry, limit: Limit, caller: Caller, recipient: string): Answer {
  if (entry.access === 'public') return '2xx';
  if (caller.kind === 'none' || caller.kind === 'unknown') return 401;
  // The key is an admin.
  if (entry.access === 'authenticated' || caller.kind !== 'token') return '2xx';
  const grant = caller.grants.find((g) => g.scope === 'admin' || g.scope === entry.access);
  if (!grant) return 403;
  if (limit === 'named' || limit === 'stored') {
    if (grant.recipients !== undefined && !grant.recipients.includes(recipient)) return limit === 'named' ? 403 : 404;
  }
  return '2xx';
}

const ERROR_CODE_OF: Record<Exclude<Answer, '2xx'>, string> = { 401: 'UNAUTHORIZED', 403: 'SCOPE_MISSING', 404: 'NOTIFICATION_NOT_FOUND' };

const keyOf = (entry: RouteEntry) => `${entry.method.toUpperCase()} ${entry.path}`;

// The route table of the app as the library's createApp builds it with a key (metrics on by default, the token routes with it).
const config = { ...parseConfig({}), API_KEY };
const TABLE = routeTableOf(
  createApp(
    { logger: silentLogger, repository: new InMemoryNotificationRepository(), attachments: new InMemoryAttachmentStore(), provider: new FakePushProvider() },
    config,
  ),
);

async function secretsOf(t: KeyedApp): Promise<Map<Caller, string | undefined>> {
  const secrets = new Map<Caller, string | undefined>();
  for (const caller of CALLERS) {
    if (caller.kind === 'token') secrets.set(caller, (await issueToken(t.port, caller.grants, { label: caller.name })).secret);
    else secrets.set(caller, caller.kind === 'key' ? API_KEY : caller.kind === 'unknown' ? UNKNOWN_TOKEN : undefined);
  }
  return secrets;
}

function fixtureFor(t: KeyedApp, recipient: string): Fixture {
  return {
    recipient,
    notification: () => storeNotification(t.port, recipient, { attachment: { filename: 'p.png', contentType: 'image/png', data: PNG.toString('base64') } }),
    token: async () => (await issueToken(t.port, ['notifications:read'], { label: 'a victim of the table' })).id,
    plan: async (kind) => {
      const key = fresh();
      const request =
        kind === 'send'
          ? { target: `/scheduled/${key}`, body: { recipient, message: 'later', delaySeconds: 3600 } }
          : { target: `/heartbeats/${key}`, body: { intervalSeconds: 3600, notification: { recipient, message: 'missed' } } };
      const res = await send(t.port, { method: 'PUT', auth: API_KEY, ...request });
      if (res.status !== 200) throw new Error(`the ${kind} plan was refused: ${res.status}`);
      return key;
    },
  };
}

describe('the route table of notifications', () => {
  it('has an example request for every route, and none for a route that is gone', () => {
    const routes = TABLE.map(keyOf);
    expect(
      routes.filter((route) => !(route in EXAMPLES)),
      'routes without an example in EXAMPLES',
    ).toEqual([]);
    expect(
      Object.keys(EXAMPLES).filter((route) => !routes.includes(route)),
      'examples of routes the app no longer has',
    ).toEqual([]);
    // The routes every service has are in the table too.
    expect(routes).toEqual(expect.arrayContaining(['GET /health', 'GET /metrics', 'GET /auth/me', 'GET /tokens', 'DELETE /tokens/{id}']));
  });

  it.each(TABLE.map((entry) => [keyOf(entry), entry] as const))(
    '%s answers every caller exactly as its access and the recipient limits say',
    { timeout: 30_000 },
    async (key, entry) => {
      const example = EXAMPLES[key];
      expect(example, `${key} has no example request in EXAMPLES: add one (and its limit)`).toBeDefined();
      const t = await buildKeyedApp({ provider: new FakePushProvider().alwaysAnswer(permanent()) });
      const secrets = await secretsOf(t);
      const wrong: string[] = [];
      for (const caller of CALLERS) {
        for (const recipient of RECIPIENTS) {
          const request = await example!.request(fixtureFor(t, recipient));
          const res = await send(t.port, { method: entry.method.toUpperCase(), auth: secrets.get(caller), ...request });
          const expected = expectedAnswer(entry, example!.limit, caller, recipient);
          const code = (res.json as { code?: string } | undefined)?.code;
          const ok =
            expected === '2xx'
              ? res.status >= 200 && res.status < 300
              : res.status === expected &&
                code === (expected === 404 && example!.notFound ? example!.notFound : ERROR_CODE_OF[expected]) &&
                (expected !== 403 || res.body.toString('utf8').includes(entry.access));
          if (!ok) wrong.push(`${caller.name} on ${recipient}'s: expected ${expected}, got ${res.status} ${res.body.toString('utf8').slice(0, 200)}`);
          // Streams answered 2xx and were cut: wait until they are gone, or the per-address stream limit would answer 429.
          await eventually(() => t.hub.size === 0, { what: 'the stream to close', timeoutMs: 2_000 });
        }
      }
      expect(wrong).toEqual([]);
    },
  );
});
