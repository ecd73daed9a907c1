import {
  accessMatrixMismatches,
  eventually,
  issueMatrixCallers,
  matrixRoutesOf,
  undeclaredRoutes,
  type AccessMatrix,
  type MatrixCallers,
  type MatrixRoute,
  type RouteExpectation,
} from '@homeops/test-kit';
import { describe, expect, it } from 'vitest';
import { NOTIFICATION_SCOPES } from '../../src/app.js';
import { FakePushProvider, permanent } from '../fakes/fake-push.provider.js';
import { PNG } from '../support/files.js';
import { buildKeyedApp, issueToken, send, sendAsAdmin, storeNotification, type KeyedApp } from './access-kit.js';

// The seam between features and tokens: every route of the live /openapi.json × a token of every scope × the caller's
// own recipient and someone else's. A route added without declaring whose resource it reaches fails the first test.

type Owner = 'alice' | 'bob';

const fresh = () => `m-${Math.random().toString(36).slice(2, 10)}`;
const withFile = { attachment: { filename: 'p.png', contentType: 'image/png', data: PNG.toString('base64') } };

/** The expectations, given the app: how each route meets a recipient. */
function expectationsFor(t: KeyedApp): Record<string, RouteExpectation<Owner>> {
  const at = (target: string) => () => Promise.resolve({ target });
  const unowned = (target: string, body?: unknown): RouteExpectation<Owner> => ({
    ownership: 'unowned',
    request: () => Promise.resolve(body === undefined ? { target } : { target, body }),
  });
  const notification = (owner: Owner) => storeNotification(t.port, owner, withFile);
  const plan = async (kind: 'send' | 'heartbeat', owner: Owner) => {
    const key = fresh();
    const body =
      kind === 'send'
        ? { recipient: owner, message: 'later', delaySeconds: 3600 }
        : { intervalSeconds: 3600, notification: { recipient: owner, message: 'missed' } };
    await sendAsAdmin(t.port, { method: 'PUT', target: `/${kind === 'send' ? 'scheduled' : 'heartbeats'}/${key}`, body });
    return key;
  };
  const spareToken = async () => (await issueToken(t.port, ['notifications:read'], { label: 'spare' })).id;
  const owned = (request: RouteExpectation<Owner>['request']): RouteExpectation<Owner> => ({ ownership: 'owned', request });
  const listing = (seed: (owner: Owner) => Promise<unknown>, target: string): RouteExpectation<Owner> => ({
    ownership: 'listing',
    request: async (owner) => (await seed(owner), { target }),
  });
  return {
    'GET /health': { ownership: 'unowned', request: at('/health') },
    'GET /auth/me': { ownership: 'unowned', request: at('/auth/me') },
    'GET /tokens': { ownership: 'unowned', request: at('/tokens') },
    'POST /tokens': unowned('/tokens', { label: 'from the matrix', scopes: ['notifications:read'] }),
    'PATCH /tokens/{id}': { ownership: 'unowned', request: async () => ({ target: `/tokens/${await spareToken()}`, body: { label: 'renamed' } }) },
    'POST /tokens/{id}/rotate': { ownership: 'unowned', request: async () => ({ target: `/tokens/${await spareToken()}/rotate` }) },
    'DELETE /tokens/{id}': { ownership: 'unowned', request: async () => ({ target: `/tokens/${await spareToken()}` }) },
    'GET /sounds': { ownership: 'unowned', request: at('/sounds') },
    'POST /hooks/{template}': owned((owner) =>
      Promise.resolve({ target: `/hooks/generic?recipient=${owner}`, body: { title: 'disk', message: 'disk full', status: 'firing', id: fresh() } }),
    ),
    'POST /notifications': owned((owner) => Promise.resolve({ target: '/notifications', body: { recipient: owner, message: 'from the matrix' } })),
    'GET /notifications/{recipient}': owned((owner) => Promise.resolve({ target: `/notifications/${owner}` })),
    'POST /notifications/{recipient}/read-all': owned((owner) => Promise.resolve({ target: `/notifications/${owner}/read-all` })),
    'GET /notifications/{recipient}/stream': owned((owner) => Promise.resolve({ target: `/notifications/${owner}/stream` })),
    'GET /notifications/single/{id}': owned(async (owner) => ({ target: `/notifications/single/${await notification(owner)}` })),
    'GET /notifications/single/{id}/attachment': owned(async (owner) => ({ target: `/notifications/single/${await notification(owner)}/attachment` })),
    'PATCH /notifications/{id}/read': owned(async (owner) => ({ target: `/notifications/${await notification(owner)}/read` })),
    'PATCH /notifications/{id}/unread': owned(async (owner) => ({ target: `/notifications/${await notification(owner)}/unread` })),
    'POST /notifications/{id}/resend': owned(async (owner) => ({ target: `/notifications/${await notification(owner)}/resend` })),
    'DELETE /notifications/{id}': owned(async (owner) => ({ target: `/notifications/${await notification(owner)}` })),
    'GET /scheduled': listing((owner) => plan('send', owner), '/scheduled'),
    // The owner's plan, replaced by a body naming the caller's recipient: a token of another inbox must not take it over.
    'PUT /scheduled/{key}': owned(async (owner, caller) => ({
      target: `/scheduled/${await plan('send', owner)}`,
      body: { recipient: caller, message: 'replaced', delaySeconds: 60 },
    })),
    'DELETE /scheduled/{key}': owned(async (owner) => ({ target: `/scheduled/${await plan('send', owner)}` })),
    'GET /heartbeats': listing((owner) => plan('heartbeat', owner), '/heartbeats'),
    'PUT /heartbeats/{name}': owned(async (owner, caller) => ({
      target: `/heartbeats/${await plan('heartbeat', owner)}`,
      body: { intervalSeconds: 60, notification: { recipient: caller, message: 'replaced' } },
    })),
    'GET /heartbeats/{name}/ping': owned(async (owner) => ({ target: `/heartbeats/${await plan('heartbeat', owner)}/ping` })),
    'POST /heartbeats/{name}/ping': owned(async (owner) => ({ target: `/heartbeats/${await plan('heartbeat', owner)}/ping` })),
    'DELETE /heartbeats/{name}': owned(async (owner) => ({ target: `/heartbeats/${await plan('heartbeat', owner)}` })),
    'GET /recipients': listing(notification, '/recipients'),
    'GET /events': listing(notification, '/events'),
  };
}

/** Everything of `owner` a request could change: its notifications (read, kept) and its plans; deliveries move on by themselves. */
async function stateOf(t: KeyedApp, owner: Owner): Promise<unknown> {
  const page = await t.repository.list(owner, { limit: 1000 });
  const notifications = page.items.map((n) => ({ id: n.id, read: n.read, title: n.title, message: n.message, priority: n.priority }));
  const plans = (await t.plans.list()).filter((p) => p.notification.recipient === owner).map(({ kind, key, version }) => ({ kind, key, version }));
  return { notifications, plans: plans.sort((a, b) => a.key.localeCompare(b.key)) };
}

function matrixOf(t: KeyedApp): AccessMatrix<Owner> {
  return {
    owners: ['alice', 'bob'],
    scopes: NOTIFICATION_SCOPES,
    limited: (scope, owner) => (scope === 'notifications:send' || scope === 'notifications:read' ? { scope, recipients: [owner] } : undefined),
    issue: async (grants) => (await issueToken(t.port, grants, { label: 'matrix' })).secret,
    send: async (method, request, secret) => {
      const res = await send(t.port, { method, auth: secret, ...request });
      // A stream that answered was cut: wait until it is gone, or the per-address stream limit would answer 429.
      await eventually(() => t.hub.size === 0, { what: 'the stream to close', timeoutMs: 2_000 });
      return { status: res.status, body: res.body.toString('utf8') };
    },
    stateOf: (owner) => stateOf(t, owner),
    shows: (body, owner) => body.includes(`"recipient":"${owner}"`),
    expectations: expectationsFor(t),
  };
}

/** The app (in-memory history, deliveries that fail for good so a resend has something to resend), its matrix and callers. */
async function served(): Promise<{ matrix: AccessMatrix<Owner>; callers: MatrixCallers; routes: MatrixRoute[] }> {
  // The test kit closes the server after each test: each test serves its own.
  const t = await buildKeyedApp({ repository: 'memory', provider: new FakePushProvider().alwaysAnswer(permanent()) });
  const matrix = matrixOf(t);
  const routes = matrixRoutesOf((await send(t.port, { method: 'GET', target: '/openapi.json' })).json as Parameters<typeof matrixRoutesOf>[0]);
  return { matrix, callers: await issueMatrixCallers(matrix), routes };
}

describe('the access matrix of notifications, from its live /openapi.json', () => {
  it('declares the ownership of every documented route, and of no route the document lacks', async () => {
    const { matrix, routes } = await served();

    expect(routes.length).toBeGreaterThan(20);
    expect(undeclaredRoutes(routes, matrix.expectations)).toEqual({ missing: [], stale: [] });
  });

  it(
    'answers every route × scope × own and bob’s resource as its access and ownership say, changing nothing of bob’s when refused',
    { timeout: 60_000 },
    async () => {
      const { matrix, callers, routes } = await served();
      const wrong: string[] = [];

      for (const route of routes) wrong.push(...(await accessMatrixMismatches(matrix, callers, route)));

      expect(wrong).toEqual([]);
    },
  );

  it('has a caller for every scope the service knows, and a limited one for each scope that takes recipients', async () => {
    const { callers } = await served();

    expect([...callers.scoped.keys()].sort()).toEqual([...NOTIFICATION_SCOPES].sort());
    expect([...callers.limited.keys()].sort()).toEqual(['notifications:read', 'notifications:send']);
  });
});
