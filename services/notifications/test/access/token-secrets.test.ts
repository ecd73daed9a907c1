import { createHash } from 'node:crypto';
import { get } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { createLogger } from '@homeops/common';
import { eventually, sendRaw, type RawRequest } from '@homeops/test-kit';
import { afterEach, describe, expect, it } from 'vitest';
import { makeStorageDir, removeDir, startRealService } from '../hostile/running-service.js';

const API_KEY = 'token-secrets-key-0123456789-abcdefghij';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

/** A raw event stream with a token; `closed` once the service ends it. */
function openStream(port: number, path: string, secret: string) {
  let closed = false;
  const req = get({ host: '127.0.0.1', port, path, headers: { Authorization: `Bearer ${secret}` } }, (res) => {
    res.resume();
    res.on('close', () => (closed = true));
  });
  req.on('error', () => (closed = true));
  return { closed: () => closed, stop: () => void req.destroy() };
}

describe('notifications never reveals a token secret', () => {
  it('keeps them out of logs (trace level), /health, error bodies and the tokens file (0600, hashes only)', { timeout: 30_000 }, async () => {
    const lines: string[] = [];
    const logger = createLogger({ service: 'notifications', level: 'trace', destination: { write: (line: string) => void lines.push(line) } });
    const dir = await makeStorageDir('notifications-token-secrets-');
    cleanups.push(() => removeDir(dir));
    const tokensFile = join(dir, 'keys', 'tokens.json');
    const service = await startRealService(dir, { LOG_LEVEL: 'trace', API_KEY, TOKENS_FILE: tokensFile, AUTH_MAX_FAILURES_PER_MINUTE: '1000' }, logger);
    cleanups.push(() => service.stop());

    const secrets: string[] = [];
    const seen: string[] = [];
    const send = async (request: RawRequest & { secret?: string }, shows: 'a secret' | 'nothing' = 'nothing') => {
      const headers: Array<[string, string]> = [...(request.headers ?? [])];
      if (request.secret !== undefined) headers.push(['Authorization', `Bearer ${request.secret}`]);
      if (request.body !== undefined) headers.push(['Content-Type', 'application/json']);
      const res = await sendRaw(service.port, { ...request, headers });
      // Creating and rotating show the secret, once: what the client asked for.
      if (shows === 'nothing')
        seen.push(`${request.method} ${String(request.target)} ${res.status} ${JSON.stringify(res.headers)} ${res.body.toString('utf8')}`);
      const json = /^application\/json/.test(res.headers['content-type'] ?? '');
      return { status: res.status, body: (json ? JSON.parse(res.body.toString('utf8')) : {}) as Record<string, unknown> };
    };
    const issue = async (label: string, scopes: unknown[]) => {
      const res = await send({ method: 'POST', target: '/tokens', secret: API_KEY, body: JSON.stringify({ label, scopes }) }, 'a secret');
      expect(res.status).toBe(201);
      const { token, secret } = res.body as { token: { id: string }; secret: string };
      secrets.push(secret);
      return { id: token.id, secret };
    };

    // Created, and used: allowed, refused by scope, refused by recipient, unknown ids, bad bodies.
    const admin = await issue('admin script', ['admin']);
    const reader = await issue("alice's phone", [{ scope: 'notifications:read', recipients: ['alice'] }]);
    const sender = await issue('door sensor', [{ scope: 'notifications:send', recipients: ['alice'] }]);
    const metrics = await issue('prometheus', ['metrics']);
    const created = await send({ method: 'POST', target: '/notifications', secret: sender.secret, body: '{"recipient":"alice","message":"door open"}' });
    expect(created.status).toBe(201);
    const bobs = await send({ method: 'POST', target: '/notifications', secret: admin.secret, body: '{"recipient":"bob","message":"hi"}' });
    expect((await send({ method: 'POST', target: '/notifications', secret: sender.secret, body: '{"recipient":"bob","message":"x"}' })).status).toBe(403);
    expect((await send({ method: 'POST', target: '/notifications', secret: sender.secret, body: '{"recipient":"alice"' })).status).toBe(400);
    expect((await send({ method: 'GET', target: '/notifications/alice', secret: reader.secret })).status).toBe(200);
    expect((await send({ method: 'GET', target: '/notifications/bob', secret: reader.secret })).status).toBe(403);
    expect((await send({ method: 'GET', target: `/notifications/single/${String(bobs.body.id)}`, secret: reader.secret })).status).toBe(404);
    expect((await send({ method: 'GET', target: '/tokens', secret: reader.secret })).status).toBe(403);
    expect((await send({ method: 'GET', target: '/metrics', secret: metrics.secret })).status).toBe(200);
    expect((await send({ method: 'GET', target: '/metrics', secret: reader.secret })).status).toBe(403);
    expect((await send({ method: 'PATCH', target: `/tokens/${reader.id}`, secret: admin.secret, body: '{"label":"alice phone"}' })).status).toBe(200);
    expect((await send({ method: 'PATCH', target: `/tokens/${reader.id}`, secret: admin.secret, body: `{"secret":"${reader.secret}"}` })).status).toBe(400);
    for (const token of [admin, reader, sender, metrics]) {
      expect((await send({ method: 'GET', target: '/auth/me', secret: token.secret })).status).toBe(200);
      expect((await send({ method: 'GET', target: '/health', secret: token.secret })).status).toBe(200);
      // The secret sent another way, or damaged.
      expect((await send({ method: 'GET', target: '/recipients', headers: [['X-API-Key', token.secret]] })).status).toBeLessThan(500);
      expect((await send({ method: 'GET', target: '/recipients', secret: `${token.secret}x` })).status).toBe(401);
    }
    expect((await send({ method: 'GET', target: '/health' })).status).toBe(200);
    expect((await send({ method: 'GET', target: '/tokens', secret: API_KEY })).status).toBe(200);

    // Rotated and revoked, with a stream open: the old secrets are refused.
    const stream = openStream(service.port, '/events', reader.secret);
    cleanups.push(stream.stop);
    const rotated = await send({ method: 'POST', target: `/tokens/${reader.id}/rotate`, secret: API_KEY }, 'a secret');
    secrets.push((rotated.body as { secret: string }).secret);
    await eventually(stream.closed, 'the stream of the rotated secret to end');
    expect((await send({ method: 'GET', target: '/notifications/alice', secret: reader.secret })).status).toBe(401);
    expect((await send({ method: 'DELETE', target: `/tokens/${sender.id}`, secret: admin.secret })).status).toBe(204);
    expect((await send({ method: 'POST', target: '/notifications', secret: sender.secret, body: '{"recipient":"alice","message":"x"}' })).status).toBe(401);
    expect((await send({ method: 'DELETE', target: `/tokens/${sender.id}`, secret: admin.secret })).status).toBe(404);
    // The last-use times are written on stop.
    await service.stop();

    const file = await readFile(tokensFile, 'utf8');
    const kept = (JSON.parse(file) as { tokens: Array<Record<string, unknown>> }).tokens;
    // Trace logging covered the token requests, so the search below covered them too.
    expect(lines.join('\n')).toContain('/tokens');
    expect(secrets).toHaveLength(5);
    const captured = { logs: lines.join('\n'), responses: seen.join('\n'), 'the tokens file': file };
    const leaks = Object.entries(captured).flatMap(([where, text]) =>
      secrets.flatMap((secret) => [secret, secret.slice(-43)].filter((part) => text.includes(part)).map((part) => `${part.slice(0, 20)}… in ${where}`)),
    );
    expect(leaks).toEqual([]);
    expect(captured.responses).not.toMatch(/hop_[0-9a-f]{12}_/);
    expect(file).not.toContain('hop_');
    expect((await stat(tokensFile)).mode & 0o777).toBe(0o600);
    expect((await stat(join(dir, 'keys'))).mode & 0o777).toBe(0o700);
    // Hashes only: each kept token has the fields of a stored token, its hash the sha-256 of its current secret.
    const current = [admin.secret, (rotated.body as { secret: string }).secret, metrics.secret];
    expect(kept.map((token) => Object.keys(token).sort())).toEqual(
      current.map(() => ['createdAt', 'expiresAt', 'hash', 'id', 'label', 'lastUsedAt', 'scopes']),
    );
    expect(kept.map((token) => token.hash).sort()).toEqual(current.map(sha256).sort());
    expect(kept.every((token) => token.lastUsedAt !== null)).toBe(true);
  });
});
