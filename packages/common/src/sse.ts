import type { Request, Response } from 'express';
import { setRepeatingTimer, systemClock, type Clock } from './clock.js';
import { clientAddressOf } from './client-address.js';
import { AppError } from './errors.js';
import { principalOf, type Principal } from './tokens/principal.js';

export interface EventStreamOptions {
  heartbeatMs?: number;
  /** A client whose unread backlog exceeds this many bytes is disconnected (it may reconnect). */
  maxBufferedBytes?: number;
  /** Times the heartbeats; default the system clock. */
  clock?: Clock;
}

/** Limits on open streams, so one client cannot hold every socket and timer of the process. */
export interface EventStreamLimits {
  /** Streams open at once, all clients together. */
  maxStreams?: number;
  /** Streams open at once from one client address. */
  maxStreamsPerAddress?: number;
  /** Streams open at once with one token (the API key and an open service are not tokens: the address limit holds). */
  maxStreamsPerToken?: number;
  /** The last slots of maxStreams that only an admin (the key, an admin token) may take; default 10, at most half. */
  reservedForAdmin?: number;
}

/** Counts per key (an address, a token id), forgetting a key at 0. */
class Tally {
  private readonly counts = new Map<string, number>();

  of(key: string): number {
    return this.counts.get(key) ?? 0;
  }

  add(key: string, delta: 1 | -1): void {
    const next = this.of(key) + delta;
    if (next > 0) this.counts.set(key, next);
    else this.counts.delete(key);
  }
}

/** One open Server-Sent Events response. */
export interface EventStream {
  send(event: string, data: unknown, id?: string): void;
  close(): void;
  readonly closed: boolean;
}

/** Tracks open event streams so shutdown can end them and /health can count them. */
export class EventStreamHub {
  private readonly streams = new Set<EventStream>();
  private readonly perAddress = new Tally();
  private readonly perToken = new Tally();
  private readonly maxStreams: number;
  private readonly maxStreamsPerAddress: number;
  private readonly maxStreamsPerToken: number;
  private readonly reservedForAdmin: number;

  constructor(private readonly defaults: EventStreamOptions & EventStreamLimits = {}) {
    this.maxStreams = defaults.maxStreams ?? 200;
    this.maxStreamsPerAddress = defaults.maxStreamsPerAddress ?? 20;
    this.maxStreamsPerToken = defaults.maxStreamsPerToken ?? 10;
    this.reservedForAdmin = Math.min(defaults.reservedForAdmin ?? 10, Math.floor(this.maxStreams / 2));
  }

  get size(): number {
    return this.streams.size;
  }

  /**
   * Turns the response into an event stream; the returned stream closes itself when the client leaves. Throws
   * TOO_MANY_STREAMS (429) before writing anything when a limit is reached.
   */
  open(req: Request, res: Response, options: EventStreamOptions = {}): EventStream {
    const address = clientAddressOf(req);
    const principal = principalOf(res);
    const tokenId = principal.kind === 'token' ? principal.tokenId : undefined;
    const full = this.limitReached(address, tokenId, principal);
    if (full) throw new AppError('TOO_MANY_STREAMS', `Too many open event streams (at most ${full})`, { retryAfterSeconds: 5 });
    const { perAddress, perToken } = this;
    perAddress.add(address, 1);
    if (tokenId !== undefined) perToken.add(tokenId, 1);
    const heartbeatMs = options.heartbeatMs ?? this.defaults.heartbeatMs ?? 15_000;
    const maxBuffered = options.maxBufferedBytes ?? this.defaults.maxBufferedBytes ?? 1024 * 1024;
    res.status(200);
    res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
    res.setHeader('Cache-Control', 'no-cache, no-transform');
    res.setHeader('Connection', 'keep-alive');
    res.setHeader('X-Accel-Buffering', 'no');
    res.flushHeaders();
    res.write(`retry: 3000\n: connected\n\n`);

    let closed = false;
    let unwatch = () => {};
    const streams = this.streams;
    const write = (chunk: string) => {
      if (closed) return;
      if (res.writableLength > maxBuffered) {
        stream.close();
        return;
      }
      res.write(chunk);
    };
    const clock = options.clock ?? this.defaults.clock ?? systemClock;
    const heartbeat = setRepeatingTimer(clock, () => write(`: heartbeat ${clock.now()}\n\n`), heartbeatMs);
    const stream: EventStream = {
      send(event, data, id) {
        const lines = JSON.stringify(data);
        write(`${id ? `id: ${id}\n` : ''}event: ${event}\ndata: ${lines}\n\n`);
      },
      close() {
        if (closed) return;
        closed = true;
        heartbeat.cancel();
        unwatch();
        streams.delete(stream);
        perAddress.add(address, -1);
        if (tokenId !== undefined) perToken.add(tokenId, -1);
        res.end();
        // A client that stopped reading never drains; do not wait for it.
        if (res.writableLength > 0) res.destroy();
      },
      get closed() {
        return closed;
      },
    };
    this.streams.add(stream);
    // A revoked, rotated, changed or expired token ends its streams at once; the client reconnects with what it has.
    unwatch = principal.onEnd(() => stream.close());
    req.on('close', () => stream.close());
    return stream;
  }

  /** Which limit a new stream would pass, in words, or undefined when it may open. */
  private limitReached(address: string, tokenId: string | undefined, principal: Principal): string | undefined {
    if (this.perAddress.of(address) >= this.maxStreamsPerAddress) return `${this.maxStreamsPerAddress} from one address`;
    if (tokenId !== undefined && this.perToken.of(tokenId) >= this.maxStreamsPerToken) return `${this.maxStreamsPerToken} per token`;
    if (this.streams.size >= this.maxStreams) return `${this.maxStreams} in all`;
    // The last slots stay free for an admin, so a crowd of limited tokens cannot shut the admin's dashboard out.
    const shared = this.maxStreams - this.reservedForAdmin;
    if (!principal.isAdmin && this.streams.size >= shared) return `${shared} for tokens without the admin scope`;
    return undefined;
  }

  /** Ends every open stream (used on shutdown). */
  closeAll(): void {
    for (const stream of [...this.streams]) stream.close();
  }
}

/** The Last-Event-ID a reconnecting client sent, if any. */
export function lastEventIdOf(req: Request): string | undefined {
  const value = req.headers['last-event-id'];
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}
