import { EventReplay, type ReplayedEvent } from '@homeops/common/core';
import type { ChannelState, NotificationRecord } from './notification.js';

/** What the live feed of one recipient carries. */
export type NotificationEvent =
  | {
      type: 'created' | 'read' | 'unread' | 'delivery' | 'acknowledged' | 'alarm-ended';
      recipient: string;
      notification: NotificationRecord;
      /** A `delivery` event about one fallback target's state (Pushover's own state is the delivery's status). */
      channel?: ChannelState;
    }
  | { type: 'deleted'; recipient: string; id: string }
  | { type: 'read-all'; recipient: string; updated: number; readAt: string };

/** `remote`: published by another instance sharing the store (through the relay). */
type Listener = (event: NotificationEvent, id: string, remote: boolean) => void;

/** Carries events between service instances that share one store, so every instance's streams see every change. */
export interface EventRelay {
  /** Tells the other instances; best effort, never throws. */
  send(event: NotificationEvent): void;
  /** Calls `receive` with each event another instance published, in their order. */
  start(receive: (event: NotificationEvent) => void): Promise<void>;
  stop(): Promise<void>;
}

/** How many events (of all recipients) are kept for streams that reconnect with Last-Event-ID. */
export const EVENT_REPLAY_SIZE = 1000;

/** In-process fan-out of domain events to the subscribers of each recipient (the SSE streams), with ids and a replay. */
export class NotificationEvents {
  private readonly listeners = new Map<string, Set<Listener>>();
  private readonly everyRecipient = new Set<Listener>();
  private readonly replay = new EventReplay<NotificationEvent>(EVENT_REPLAY_SIZE);
  private relay: EventRelay | undefined;

  /** Shares events with the other instances: what they publish reaches this instance's streams, and the reverse. */
  async connect(relay: EventRelay): Promise<void> {
    this.relay = relay;
    await relay.start((event) => this.fanOut(event, true));
  }

  /** The id before the first event kept: missedSince(replayStart) gives them all. */
  get replayStart(): string {
    return this.replay.start;
  }

  /** The events of `recipient` (of every one when undefined) after `lastEventId`, oldest first; undefined when some are no longer kept (reload). */
  missedSince(recipient: string | undefined, lastEventId: string): Array<ReplayedEvent<NotificationEvent>> | undefined {
    return this.replay.since(lastEventId, (event) => recipient === undefined || event.recipient === recipient);
  }

  /** Calls `listener` for every event of `recipient`; returns the unsubscribe function. */
  subscribe(recipient: string, listener: Listener): () => void {
    let set = this.listeners.get(recipient);
    if (!set) this.listeners.set(recipient, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0) this.listeners.delete(recipient);
    };
  }

  /** Calls `listener` for every event of every recipient (domain jobs); returns the unsubscribe function. */
  subscribeAll(listener: Listener): () => void {
    this.everyRecipient.add(listener);
    return () => this.everyRecipient.delete(listener);
  }

  publish(event: NotificationEvent): void {
    this.fanOut(event, false);
    this.relay?.send(event);
  }

  private fanOut(event: NotificationEvent, remote: boolean): void {
    const id = this.replay.push(event);
    for (const listener of [...(this.listeners.get(event.recipient) ?? []), ...this.everyRecipient]) {
      // A broken subscriber must not fail the request that caused the event.
      try {
        listener(event, id, remote);
      } catch {
        /* the stream closes itself on write errors */
      }
    }
  }

  /** Number of subscriptions, for /health. */
  get size(): number {
    let n = 0;
    for (const set of this.listeners.values()) n += set.size;
    return n;
  }
}
