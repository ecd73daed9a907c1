import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { ManualClock } from '@homeops/common';
import { eventually } from '@homeops/test-kit';
import nock from 'nock';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PushoverProvider } from '../../src/adapters/pushover/pushover.provider.js';
import { failedDelivery } from '../../src/domain/delivery-outcome.js';
import { DeliveryError, type PushMessage } from '../../src/domain/push-provider.js';
import { API_TOKEN, USER_KEY, rejectionOf } from './pushover-test-kit.js';

// A failure before any byte of the message was written (connection reset during the TLS handshake, a connection that
// never opens) certainly sent nothing: it is retried, an emergency too. One after the request went out may have
// reached Pushover: an emergency is then `unknown`, never sent twice.
const EMERGENCY: PushMessage = { title: 'Smoke', message: 'Smoke in the kitchen', priority: 2 };
const POLICY = { minDelayMs: 5_000, maxDelayMs: 60_000, maxAttempts: 5 };

/** A TCP server on loopback that does `onConnection` with each socket (never speaks TLS or HTTP itself). */
async function startTcpServer(onConnection: (socket: Socket) => void): Promise<{ port: number; connections: Socket[]; close(): Promise<void> }> {
  const connections: Socket[] = [];
  const server: Server = createServer((socket) => {
    connections.push(socket);
    socket.on('error', () => undefined);
    onConnection(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const close = () =>
    new Promise<void>((resolve) => {
      for (const socket of connections) socket.destroy();
      server.close(() => resolve());
    });
  return { port: (server.address() as AddressInfo).port, connections, close };
}

// nock's interceptor stands in for Node's sockets (even on loopback): these tests need the real ones, whose connect
// and TLS handshake the provider follows.
beforeAll(() => nock.restore());
afterAll(() => nock.activate());

const servers: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const failureOf = (promise: Promise<unknown>) => rejectionOf(promise, DeliveryError);

const provider = (apiUrl: string, clock = new ManualClock()) =>
  new PushoverProvider({ userKey: USER_KEY, apiToken: API_TOKEN, apiUrl, timeoutMs: 2_000, clock });

describe('PushoverProvider.send, when the message may or may not have left', () => {
  it('retries an emergency whose connection was reset before its TLS handshake ended: nothing was sent', async () => {
    const server = await startTcpServer((socket) => socket.resetAndDestroy());
    servers.push(server);

    const error = await failureOf(provider(`https://127.0.0.1:${server.port}`).send(EMERGENCY));
    const delivery = failedDelivery(error, 1, new Date('2026-11-28T12:00:00Z'), POLICY, undefined, 2);

    expect(error).toMatchObject({ retryable: true, message: expect.stringMatching(/not sent/) });
    expect(error.details.maybeDelivered).toBeUndefined();
    expect(delivery).toMatchObject({ status: 'pending', nextAttemptAt: expect.any(String) });
  });

  it('retries an emergency whose connection never opened within the timeout, as not sent', async () => {
    const clock = new ManualClock();
    // Takes the TCP connection and never answers the TLS handshake.
    const server = await startTcpServer(() => undefined);
    servers.push(server);
    const failure = failureOf(provider(`https://127.0.0.1:${server.port}`, clock).send(EMERGENCY));
    await eventually(() => server.connections.length === 1, 'the connection to be taken');

    clock.advance(2_000);
    const error = await failure;

    expect(error.message).toMatch(/No connection to Pushover could be opened within 2000 ms; the message was not sent/);
    expect(error.details.maybeDelivered).toBeUndefined();
    expect(failedDelivery(error, 1, new Date(), POLICY, undefined, 2)).toMatchObject({ status: 'pending' });
  });

  it('leaves an emergency unknown when the connection is reset after the request was written', async () => {
    // Plain HTTP: the connection opens, the request is written, and the server resets on its first bytes.
    const server = await startTcpServer((socket) => socket.once('data', () => socket.resetAndDestroy()));
    servers.push(server);

    const error = await failureOf(provider(`http://127.0.0.1:${server.port}`).send(EMERGENCY));

    expect(error.details.maybeDelivered).toBe(true);
    expect(failedDelivery(error, 1, new Date(), POLICY, undefined, 2)).toMatchObject({ status: 'unknown' });
  });
});
