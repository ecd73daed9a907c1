import type { Grant } from '../packages/common/src/index.js';
import { describe, expect, it } from 'vitest';
import { accessMatrixMismatches, issueMatrixCallers, matrixRoutesOf, undeclaredRoutes, type AccessMatrix } from '../packages/test-kit/src/index.js';

// The generator both services' matrices use, against a small service of notes kept per owner: it must catch a route
// that forgets its ownership check, and a route that declares none.

type Owner = 'ann' | 'ben';

const DOCUMENT = {
  paths: {
    '/notes/{owner}': { get: { 'x-required-scope': 'notifications:read' }, post: { 'x-required-scope': 'notifications:send' } },
    '/health': { get: { 'x-required-scope': 'public' } },
  },
};

/** The notes service: `checksOwner` false is the bug the matrix is for (POST writes to any owner's notes). */
function notesService(checksOwner: boolean): AccessMatrix<Owner> {
  const notes: Record<Owner, string[]> = { ann: [], ben: [] };
  const tokens = new Map<string, Grant[]>();
  return {
    owners: ['ann', 'ben'],
    scopes: ['admin', 'notifications:read', 'notifications:send'],
    limited: (scope, owner) => (scope === 'admin' ? undefined : { scope, recipients: [owner] }),
    issue: (grants) => {
      const secret = `t${tokens.size}`;
      tokens.set(secret, grants);
      return Promise.resolve(secret);
    },
    send: (method, request, secret) => {
      const owner = request.target.split('/')[2] as Owner;
      if (request.target === '/health') return Promise.resolve({ status: 200, body: 'ok' });
      const grants = secret === undefined ? undefined : tokens.get(secret);
      if (!grants) return Promise.resolve({ status: 401, body: '' });
      const scope = method === 'GET' ? 'notifications:read' : 'notifications:send';
      const grant = grants.find((g) => g.scope === 'admin' || g.scope === scope);
      if (!grant) return Promise.resolve({ status: 403, body: '' });
      if ((checksOwner || method === 'GET') && grant.recipients && !grant.recipients.includes(owner)) return Promise.resolve({ status: 403, body: '' });
      if (method === 'POST') notes[owner].push('note');
      return Promise.resolve({ status: 200, body: JSON.stringify(notes[owner]) });
    },
    stateOf: (owner) => Promise.resolve([...notes[owner]]),
    shows: (body, owner) => body.includes(owner),
    expectations: {
      'GET /notes/{owner}': { ownership: 'owned', request: (owner) => Promise.resolve({ target: `/notes/${owner}` }) },
      'POST /notes/{owner}': { ownership: 'owned', request: (owner) => Promise.resolve({ target: `/notes/${owner}`, body: {} }) },
      'GET /health': { ownership: 'unowned', request: () => Promise.resolve({ target: '/health' }) },
    },
  };
}

async function mismatchesOf(matrix: AccessMatrix<Owner>): Promise<string[]> {
  const callers = await issueMatrixCallers(matrix);
  const wrong: string[] = [];
  for (const route of matrixRoutesOf(DOCUMENT)) wrong.push(...(await accessMatrixMismatches(matrix, callers, route)));
  return wrong;
}

describe('the access matrix generator (packages/test-kit)', () => {
  it('finds nothing wrong with a service that checks every owner', async () => {
    expect(await mismatchesOf(notesService(true))).toEqual([]);
  });

  it("reports a route that lets a limited token write to another owner's resource, and that the owner's state changed", async () => {
    const wrong = await mismatchesOf(notesService(false));

    expect(wrong).toEqual([
      expect.stringMatching(/^POST \/notes\/\{owner\} \/notes\/ben by a notifications:send token limited to ann: expected refused, got 200/),
      'POST /notes/{owner} by a notifications:send token limited to ann: refused, yet the state of ben changed',
    ]);
  });

  it('reports a documented route without an expectation, and an expectation of a route the document lacks', async () => {
    const matrix = notesService(true);
    const { 'GET /health': _health, ...expectations } = matrix.expectations;
    const routes = matrixRoutesOf(DOCUMENT);

    expect(undeclaredRoutes(routes, { ...expectations, 'DELETE /gone': expectations['GET /notes/{owner}']! })).toEqual({
      missing: ['GET /health'],
      stale: ['DELETE /gone'],
    });
    expect(
      await accessMatrixMismatches(
        { ...matrix, expectations },
        await issueMatrixCallers(matrix),
        routes.find((r) => r.key === 'GET /health')!,
      ),
    ).toEqual(['GET /health has no expectation: declare its ownership in the access matrix']);
  });
});
