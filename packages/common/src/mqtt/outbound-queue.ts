/** One message to publish. */
export interface OutboundMessage {
  topic: string;
  payload: string;
  retain: boolean;
}

/** Retained messages are resent in this order: Home Assistant needs a config before the states it names. */
export type RetainedKind = 'discovery' | 'state';

/** How an OutboundQueue is built. */
export interface OutboundQueueOptions {
  maxQueued: number;
  maxInFlight: number;
  /** Publishes one message; rejects when the broker did not acknowledge it in time. */
  send(message: OutboundMessage): Promise<void>;
  /** Told once per connection when events start being dropped (the queue was full). */
  onDropped(count: number): void;
}

/**
 * What the bridge still has to publish, bounded whatever the broker does: the latest payload of each retained topic
 * (a new one replaces the old, so they are bounded by the topics in use) and a FIFO of one-off events (the oldest
 * dropped past `maxQueued`); at most `maxInFlight` publishes wait for the broker at once. Paused while disconnected.
 */
export class OutboundQueue {
  private readonly retained = new Map<string, { payload: string; kind: RetainedKind }>();
  private dirty = new Set<string>();
  private readonly events: OutboundMessage[] = [];
  private inFlight = 0;
  private paused = true;
  /** Moves on at each pause, so acknowledgements of a closed connection are not counted against the next one. */
  private generation = 0;
  private dropped = 0;

  constructor(private readonly options: OutboundQueueOptions) {}

  /**
   * Sets a retained topic's payload (an empty one clears it at the broker) and publishes it when it can. The same payload
   * again is not published (the broker's retained copy already tells it) unless `again`: every publish reaches the
   * subscribers, and a flow that acts on each one would act on a repeat.
   */
  retain(topic: string, payload: string, kind: RetainedKind, again = false): void {
    const known = this.retained.get(topic);
    if (!again && known?.payload === payload && known.kind === kind) return;
    this.retained.set(topic, { payload, kind });
    this.dirty.delete(topic);
    this.dirty.add(topic);
    this.pump();
  }

  /** Queues a one-off message. */
  push(topic: string, payload: string): void {
    this.events.push({ topic, payload, retain: false });
    if (this.events.length > this.options.maxQueued) {
      this.events.shift();
      if (this.dropped++ === 0) this.options.onDropped(this.dropped);
    }
    this.pump();
  }

  /** The connection is gone: nothing is sent until `resendAll`. */
  pause(): void {
    if (this.paused) return;
    this.paused = true;
    this.generation++;
    this.inFlight = 0;
  }

  /** Publishes every retained topic again, configs first, then what is queued. */
  resendAll(): void {
    const kinds: RetainedKind[] = ['discovery', 'state'];
    this.dirty = new Set(kinds.flatMap((kind) => [...this.retained].filter(([, entry]) => entry.kind === kind).map(([topic]) => topic)));
    this.paused = false;
    this.dropped = 0;
    this.pump();
  }

  /** Messages not yet handed to the broker. */
  get pending(): number {
    return this.dirty.size + this.events.length;
  }

  private next(): OutboundMessage | undefined {
    for (const topic of this.dirty) {
      this.dirty.delete(topic);
      const entry = this.retained.get(topic);
      if (entry) return { topic, payload: entry.payload, retain: true };
    }
    return this.events.shift();
  }

  private pump(): void {
    while (!this.paused && this.inFlight < this.options.maxInFlight) {
      const message = this.next();
      if (!message) return;
      this.inFlight++;
      const generation = this.generation;
      const settle = (failed: boolean) => {
        if (generation !== this.generation) return;
        this.inFlight--;
        // A retained topic is tried again unless a newer payload already waits; a failed event is dropped.
        if (failed && message.retain && this.retained.get(message.topic)?.payload === message.payload) this.dirty.add(message.topic);
        if (!failed) this.pump();
      };
      this.options.send(message).then(
        () => settle(false),
        () => settle(true),
      );
    }
  }
}
