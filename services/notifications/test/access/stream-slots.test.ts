import { openRawStream, type RawStream } from '@homeops/test-kit';
import { afterEach, describe, expect, it } from 'vitest';
import { API_KEY, buildKeyedApp, issueToken } from './access-kit.js';

// A one-inbox read token opened all 200 stream slots and the admin's /events got 429: streams are capped per token,
// and the last slots are kept for the admin.
const streams: RawStream[] = [];
afterEach(() => {
  for (const stream of streams.splice(0)) stream.socket.destroy();
});

const ALICE_READS = [{ scope: 'notifications:read' as const, recipients: ['alice'] }];

/** Opens a stream with `secret` from its own loopback address (so the per-address limit is not what stops it). */
async function statusOf(port: number, path: string, secret: string, host: number): Promise<number> {
  const stream = await openRawStream(port, path, { headers: { Authorization: `Bearer ${secret}` }, localAddress: `127.0.0.${host}` });
  streams.push(stream);
  await stream.waitFor(/^HTTP\/1\.1 \d{3} /, 5_000);
  return Number(/^HTTP\/1\.1 (\d{3})/.exec(stream.text())![1]);
}

describe('event stream slots per token', () => {
  it('gives a one-inbox read token 10 streams from any number of addresses, and the admin still gets /events', { timeout: 30_000 }, async () => {
    const t = await buildKeyedApp();
    const reader = await issueToken(t.port, ALICE_READS);

    const byToken: number[] = [];
    for (let host = 2; host <= 13; host++) byToken.push(await statusOf(t.port, '/notifications/alice/stream', reader.secret, host));
    const admin = await statusOf(t.port, '/events', API_KEY, 20);

    expect(byToken).toEqual([...Array<number>(10).fill(200), 429, 429]);
    expect(admin).toBe(200);
  });

  it('keeps the last 10 slots for admins when limited tokens fill the rest', { timeout: 30_000 }, async () => {
    const t = await buildKeyedApp({ config: { SSE_MAX_STREAMS: 22, SSE_MAX_STREAMS_PER_TOKEN: 6 } });
    const readers = await Promise.all([0, 1, 2].map(() => issueToken(t.port, ALICE_READS)));

    const shared: number[] = [];
    for (const [i, reader] of readers.entries()) {
      for (let n = 0; n < 4; n++) shared.push(await statusOf(t.port, '/notifications/alice/stream', reader.secret, 2 + i * 4 + n));
    }
    const admins: number[] = [];
    for (let host = 30; host < 41; host++) admins.push(await statusOf(t.port, '/events', API_KEY, host));

    // 22 slots, 10 kept for admins: the limited tokens share 12, though each could hold 6.
    expect(shared).toEqual(Array<number>(12).fill(200));
    expect(await statusOf(t.port, '/notifications/alice/stream', readers[0]!.secret, 50)).toBe(429);
    expect(admins).toEqual([...Array<number>(10).fill(200), 429]);
  });
});
