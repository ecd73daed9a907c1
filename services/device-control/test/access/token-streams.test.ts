import { ManualClock } from '@homeops/common';
import { eventually } from '@homeops/test-kit';
import { afterEach, describe, expect, it } from 'vitest';
import type { ServedApp } from '../hostile/served-app.js';
import { SseClient } from '../support/sse-client.js';
import { bearer, createToken, PLUG, serveHouse, withKey } from './access-fixture.js';

// The device event stream ends with its token: revoked or expired, it is closed within a second on the open
// connection, and the token is refused from then on, without a restart.

let house: (ServedApp & { base: string }) | undefined;
const streams: SseClient[] = [];
afterEach(async () => {
  for (const stream of streams.splice(0)) await stream.close();
  await house?.stop();
  house = undefined;
});

async function openEvents(secret: string): Promise<SseClient> {
  const stream = await SseClient.connect(`${house!.base}/events`, bearer(secret));
  streams.push(stream);
  expect(stream.status).toBe(200);
  return stream;
}

const devicesWith = (secret: string) => fetch(`${house!.base}/devices`, { headers: bearer(secret) });

describe('GET /events with a token', () => {
  it('ends within one second of the token being revoked, and the next request with it is 401', async () => {
    house = await serveHouse();
    const revoked = await createToken(house.base, ['devices:read'], { label: 'revoked' });
    const kept = await createToken(house.base, ['devices:read'], { label: 'kept' });
    const ending = await openEvents(revoked.secret);
    const staying = await openEvents(kept.secret);

    const deleted = await fetch(`${house.base}/tokens/${revoked.id}`, { method: 'DELETE', headers: withKey });

    expect(deleted.status).toBe(204);
    await eventually(() => ending.ended, { what: 'the revoked token’s stream to end', timeoutMs: 1_000 });
    expect((await devicesWith(revoked.secret)).status).toBe(401);
    // Only that token's streams end: the other one still gets the events.
    await fetch(`${house.base}/devices/${PLUG}/toggle`, { method: 'POST', headers: withKey });
    await staying.waitFor('channel', (event: { uuid: string }) => event.uuid === PLUG);
    expect(staying.ended).toBe(false);
    expect((await devicesWith(kept.secret)).status).toBe(200);
  });

  it('ends within one second of the token expiring, and the next request with it is 401', async () => {
    const clock = new ManualClock(Date.parse('2026-11-26T08:00:00Z'));
    house = await serveHouse({ clock });
    const expiring = await createToken(house.base, ['devices:read'], { expiresAt: new Date(clock.now() + 60_000).toISOString() });
    const stream = await openEvents(expiring.secret);
    expect((await devicesWith(expiring.secret)).status).toBe(200);

    clock.advance(60_000);

    await eventually(() => stream.ended, { what: 'the expired token’s stream to end', timeoutMs: 1_000 });
    expect((await devicesWith(expiring.secret)).status).toBe(401);
  });
});
