import { randomBytes } from 'node:crypto';

/** One event kept for clients that reconnect. */
export interface ReplayedEvent<T> {
  id: string;
  data: T;
}

/**
 * The last `capacity` events with increasing ids, so a client that reconnects with `Last-Event-ID` gets what it
 * missed. Ids are `<epoch>-<n>`, the epoch new for every process: an id from before a restart, or from another
 * instance, is never taken for one of ours. When some of what the client missed is no longer kept (or the id is not
 * one this process gave), `since` answers undefined and the stream tells the client to reload (`reset`).
 */
export class EventReplay<T> {
  private readonly items: Array<{ n: number; data: T }> = [];
  private nextN = 1;
  readonly epoch = randomBytes(4).toString('hex');

  constructor(readonly capacity = 1000) {}

  /** The id before the first event: `since(start)` gives every event still kept. */
  get start(): string {
    return `${this.epoch}-0`;
  }

  /** Keeps the event; answers its id. */
  push(data: T): string {
    const n = this.nextN++;
    this.items.push({ n, data });
    if (this.items.length > this.capacity) this.items.splice(0, this.items.length - this.capacity);
    return `${this.epoch}-${n}`;
  }

  /** The kept events after `lastEventId` (the header as sent) that pass `wanted`, oldest first; undefined: reload. */
  since(lastEventId: string, wanted: (data: T) => boolean = () => true): Array<ReplayedEvent<T>> | undefined {
    const match = /^([0-9a-f]{8})-(\d{1,15})$/.exec(lastEventId);
    if (!match || match[1] !== this.epoch) return undefined;
    const last = Number(match[2]);
    if (last >= this.nextN) return undefined;
    const oldestKept = this.items[0]?.n ?? this.nextN;
    // Events after `last` that were dropped already: the client cannot be brought up to date.
    if (last + 1 < oldestKept) return undefined;
    return this.items.filter((e) => e.n > last && wanted(e.data)).map((e) => ({ id: `${this.epoch}-${e.n}`, data: e.data }));
  }
}
