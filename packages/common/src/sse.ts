import type { Request, Response } from 'express';
import { setRepeatingTimer, systemClock, type Clock } from './clock.js';
import { AppError } from './errors.js';
import { principalOf } from './tokens/principal.js';

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
  private readonly perAddress = new Map<string, number>();
  private readonly maxStreams: number;
  private readonly maxStreamsPerAddress: number;

  constructor(private readonly defaults: EventStreamOptions & EventStreamLimits = {}) {
    this.maxStreams = defaults.maxStreams ?? 200;
    this.maxStreamsPerAddress = defaults.maxStreamsPerAddress ?? 20;
  }

  get size(): number {
    return this.streams.size;
  }

  /**
   * Turns the response into an event stream; the returned stream closes itself when the client leaves. Throws
   * TOO_MANY_STREAMS (429) before writing anything when a limit is reached.
   */
  open(req: Request, res: Response, options: EventStreamOptions = {}): EventStream {
    const address = req.socket.remoteAddress ?? 'unknown';
    const fromAddress = this.perAddress.get(address) ?? 0;
    if (this.streams.size >= this.maxStreams || fromAddress >= this.maxStreamsPerAddress) {
      const whose = fromAddress >= this.maxStreamsPerAddress ? `${this.maxStreamsPerAddress} from one address` : `${this.maxStreams} in all`;
      throw new AppError('TOO_MANY_STREAMS', `Too many open event streams (at most ${whose})`, { retryAfterSeconds: 5 });
    }
    this.perAddress.set(address, fromAddress + 1);
    const perAddress = this.perAddress;
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
        const left = (perAddress.get(address) ?? 1) - 1;
        if (left > 0) perAddress.set(address, left);
        else perAddress.delete(address);
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
    unwatch = principalOf(res).onEnd(() => stream.close());
    req.on('close', () => stream.close());
    return stream;
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
