import { AppError, isoNow, systemClock, type Clock, type Logger } from '@homeops/common/core';
import { BackgroundReads } from './background-reads.js';
import { callCloud, retryAfterFrom } from './cloud-call.js';
import type { CloudEvent, CoreCloudEvent, DeviceCloud } from './device-cloud.js';
import type { FamilyWatches } from './watches/family-watches.js';
import type { DomainFamily, FamilyDeviceCounts, FamilyOptions, FamilyState } from './device-family.js';
import type { DeviceEvent, DeviceEventListener } from './device-events.js';
import { DeviceQueue } from './device-queue.js';
import { DeviceRegistry, type DeviceCounts, type SyncResult } from './device-registry.js';
import { assertKnownDevice } from './device-rules.js';
import { presenceOf, toDeviceView, type DeviceView } from './device.js';
import { DeviceSync, type SyncStatus } from './device-sync.js';
import { LanOrCloud } from './lan-or-cloud.js';
import { lanHealthOf, type LanHealth } from './lan-health.js';
import { LanDiscovery } from './lan-discovery.js';
import { LanPolling } from './lan-polling.js';
import { MessageBudget, type BudgetWindowStatus } from './message-budget.js';

/** Limits and timings of the device service (from config; tests pass small values). */
export interface DeviceServiceOptions extends FamilyOptions {
  /** The device families (src/families): each keeps its devices' state and answers its routes. */
  families: readonly DomainFamily[];
  /** Cloud messages of the whole account in any hour (default 180: Meross asks for under about 200). */
  maxMessagesPerHour?: number;
  /** Cloud messages of the whole account in any minute (the burst window). */
  maxMessagesPerMinute: number;
  /** 0 turns the periodic sync off. */
  syncIntervalSeconds: number;
  /** Least time between two syncs asked for through the API (default 30; 0 none). */
  syncMinGapSeconds?: number;
  requestTimeoutMs: number;
  commandTimeoutMs: number;
  /** Read unknown channel states in the background (after a sync, when a device or its command channel comes back). */
  backgroundStateReads?: boolean;
  /** At most one background read per device in this many seconds (default 60). */
  backgroundReadIntervalSeconds?: number;
  /** Devices whose pushes do not arrive are read over the LAN this often (default 30; 0 off). */
  lanPollSeconds?: number;
}

/** The account's message budget as /health shows it. */
export interface BudgetHealth {
  windows: BudgetWindowStatus[];
  /** Messages sent since the start, by way: `api` and `mqtt` reached the cloud (and count), `lan` went to devices directly (and do not). */
  sent: { api: number; mqtt: number; lan: number };
}

/** What /health reports about devices, sync and the message budget. */
export interface DeviceServiceHealth {
  sync: SyncStatus;
  /** The registry's counts, then the families' own. */
  devices: DeviceCounts & Partial<FamilyDeviceCounts>;
  budget: BudgetHealth;
  lan: LanHealth;
  /** The burst window under its old name, for scripts written against 1.0. */
  commands: { limitPerMinute: number; usedLastMinute: number };
}

/** Meross's 2025 guidance: stay under about 200 cloud messages per hour per account. */
export const DEFAULT_MESSAGES_PER_HOUR = 180;

/** The device use-cases: list, synchronize, the families' reads and commands, and live state from cloud events. */
export class DeviceService {
  private readonly listeners = new Set<DeviceEventListener>();
  private readonly registry: DeviceRegistry;
  private readonly budget: MessageBudget;
  private readonly sent = { api: 0, mqtt: 0, lan: 0 };
  private readonly routes: LanOrCloud;
  private readonly polling: LanPolling;
  private readonly discovery: LanDiscovery;
  private readonly families = new Map<DomainFamily, FamilyState>();
  private readonly syncer: DeviceSync;
  private readonly reads: BackgroundReads | undefined;
  private unsubscribe: (() => void) | undefined;

  constructor(
    private readonly cloud: DeviceCloud,
    private readonly options: DeviceServiceOptions,
    private readonly logger: Logger,
    private readonly clock: Clock = systemClock,
  ) {
    this.registry = new DeviceRegistry(
      (event) => this.publish(event),
      options.families.flatMap((f) => f.deviceFlags ?? []),
      options.families.find((f) => f.controlFlag !== undefined)?.controlFlag,
    );
    this.budget = new MessageBudget(
      [
        { name: 'hour', limit: options.maxMessagesPerHour ?? DEFAULT_MESSAGES_PER_HOUR, windowMs: 3_600_000 },
        { name: 'burst', limit: options.maxMessagesPerMinute, windowMs: 60_000 },
      ],
      clock,
    );
    const queue = new DeviceQueue();
    this.routes = new LanOrCloud({ cloud, registry: this.registry, budget: this.budget });
    this.polling = new LanPolling({ cloud, registry: this.registry, queue, clock, logger, intervalMs: (options.lanPollSeconds ?? 30) * 1000 });
    this.discovery = new LanDiscovery({ cloud, registry: this.registry, queue, routes: this.routes, budget: this.budget, clock, logger });
    const family = {
      cloud,
      registry: this.registry,
      queue,
      budget: this.budget,
      routes: this.routes,
      clock,
      commandTimeoutMs: options.commandTimeoutMs,
      publish: (event: DeviceEvent) => this.publish(event),
      families: options.families,
    };
    for (const f of options.families) this.families.set(f, f.create(family, options));
    const readers = [...this.families.values()].flatMap((state) => state.backgroundReads ?? []);
    if (options.backgroundStateReads !== false && readers.length > 0) {
      // One admission is one read: of the first family whose states of the device are unknown.
      const readerOf = (uuid: string) => readers.find((r) => r.needsRead(uuid));
      this.reads = new BackgroundReads({
        budget: this.budget,
        routes: this.routes,
        clock,
        logger,
        minIntervalMs: (options.backgroundReadIntervalSeconds ?? 60) * 1000,
        needsRead: (uuid) => readerOf(uuid) !== undefined,
        // The admission is spent or released by a read's run, so one always runs (and reads nothing when moot).
        read: (uuid, admission, wanted) => (readerOf(uuid) ?? readers[0]!).read(uuid, admission, wanted),
      });
    }
    this.syncer = new DeviceSync({
      cloud,
      registry: this.registry,
      budget: this.budget,
      clock,
      logger,
      intervalSeconds: options.syncIntervalSeconds,
      minGapSeconds: options.syncMinGapSeconds ?? 30,
      timeoutMs: options.requestTimeoutMs,
      publish: (event) => this.publish(event),
      afterSync: () => {
        const uuids = this.registry.list().map((d) => d.uuid);
        this.reads?.prune();
        this.reads?.request(uuids);
        // After the state reads: a read through the cloud tells the address too, and discovery then has nothing to do.
        this.discovery.request(uuids);
      },
    });
  }

  /** Listens to the cloud, starts its session, runs the first sync and the periodic one; never fails for a down cloud. */
  async start(): Promise<void> {
    this.unsubscribe ??= this.cloud.onEvent((event) => this.applyCloudEvent(event));
    await this.cloud.start();
    this.polling.start();
    await this.syncer.start();
  }

  /** Stops timers and listeners, then the cloud session. */
  async stop(): Promise<void> {
    this.syncer.stop();
    this.polling.stop();
    this.discovery.stop();
    this.reads?.stop();
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    await this.cloud.stop();
  }

  /** Tells the live listeners (GET /events) something that happened beside the devices (a watch's state). */
  announce(event: Extract<DeviceEvent, { type: 'watch' }>): void {
    this.publish(event);
  }

  onEvent(listener: DeviceEventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Changes whenever listDevices() would answer differently. */
  get revision(): number {
    return this.registry.revision;
  }

  /** Every known device; 503 until the list was loaded from the cloud once (an empty answer would be a lie). */
  listDevices(): DeviceView[] {
    this.assertListLoaded();
    return this.registry.list().map((d) => toDeviceView(d, this.registry.isControllable(d)));
  }

  getDevice(uuid: string): DeviceView {
    this.assertListLoaded();
    const device = assertKnownDevice(this.registry.get(uuid), uuid);
    return toDeviceView(device, this.registry.isControllable(device));
  }

  /** Synchronizes the device list with the cloud now (concurrent calls share one run). */
  sync(): Promise<SyncResult> {
    return this.syncer.run();
  }

  /** The same for a caller of the API: SYNC_TOO_SOON within the minimum gap after the last one it asked for. */
  requestSync(): Promise<SyncResult> {
    return this.syncer.request();
  }

  /** Logs in once with an MFA code for a session that waits for one; the login's messages count against the budget. */
  async submitMfaCode(code: string): Promise<void> {
    const reservation = this.budget.assertReserve('caller');
    try {
      await callCloud(() => this.cloud.submitMfaCode(code), {
        what: 'the MFA login',
        timeoutMs: this.options.requestTimeoutMs * 4,
        status: () => this.cloud.status(),
        clock: this.clock,
      });
    } finally {
      this.budget.release(reservation);
    }
  }

  /** A family's use-cases (reads and commands of its devices); CLOUD_UNAVAILABLE until the device list was loaded once. */
  use<S extends FamilyState>(family: DomainFamily<S>): S {
    this.assertListLoaded();
    const state = this.families.get(family);
    if (!state) throw new Error(`The device family ${family.capability} is not registered with the device service`);
    return state as S;
  }

  /** The families that give watch conditions (docs/watches.md), in their order. */
  watchFamilies(): Array<DomainFamily & { watches: FamilyWatches }> {
    return [...this.families.keys()].filter((family): family is DomainFamily & { watches: FamilyWatches } => family.watches !== undefined);
  }

  health(): DeviceServiceHealth {
    const windows = this.budget.status();
    const burst = windows.find((w) => w.window === 'burst');
    const all = this.registry.list();
    const families = [...this.families.values()].map((state) => state.counts?.(all));
    return {
      sync: this.syncer.status(),
      devices: Object.assign(this.registry.counts(), ...families),
      budget: { windows, sent: { ...this.sent } },
      lan: lanHealthOf(all, this.cloud.lanControl ?? false),
      commands: { limitPerMinute: burst?.limit ?? 0, usedLastMinute: burst?.used ?? 0 },
    };
  }

  private assertListLoaded(): void {
    if (this.syncer.status().source !== null) return;
    throw new AppError('CLOUD_UNAVAILABLE', 'The device list has not been loaded from the cloud yet', {
      solution: 'Retry after the time given in Retry-After; see /health for the cloud session',
      retryAfterSeconds: retryAfterFrom(this.cloud.status(), this.clock.now()),
    });
  }

  private applyCloudEvent(event: CloudEvent): void {
    if (!isCoreEvent(event)) {
      for (const state of this.families.values()) state.onCloudEvent(event);
      return;
    }
    const now = this.nowIso();
    switch (event.type) {
      case 'sent':
        this.sent[event.via] += 1;
        // A LAN request goes to the device directly: Meross never sees it.
        if (event.via !== 'lan') this.budget.record();
        break;
      case 'channel':
        this.registry.setChannel(event.uuid, event.channel, event.on, event.source, now);
        break;
      case 'online':
        if (!event.online) this.forgetFamilies(event.uuid);
        this.registry.setPresence(event.uuid, presenceOf(event), now);
        if (event.online) this.reads?.request([event.uuid]);
        break;
      case 'device':
        // A command channel that came back missed pushes: the registry forgot the states, read them (bounded).
        if (!event.device.commandReady || !event.device.online) this.forgetFamilies(event.device.uuid);
        this.registry.update(event.device, now);
        this.reads?.request([event.device.uuid]);
        // Pushes stopped (the cloud or its broker went away): read it over the LAN now, then every interval.
        this.polling.request([event.device.uuid]);
        // Its command channel came up: an address still unknown can be asked for now.
        this.discovery.request([event.device.uuid]);
        break;
      case 'session':
        this.publish({ type: 'session', status: event.status });
        if (event.status.state === 'connected') this.syncer.onSessionUp();
        break;
    }
  }

  /** Forgets what the families knew of a device that went away or lost its command channel (it missed pushes). */
  private forgetFamilies(uuid: string): void {
    for (const state of this.families.values()) state.forget(uuid);
  }

  private publish(event: DeviceEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (err) {
        this.logger.error({ err }, 'device event listener failed');
      }
    }
  }

  private nowIso(): string {
    return isoNow(this.clock);
  }
}

const CORE_EVENTS: ReadonlySet<string> = new Set<CoreCloudEvent['type']>(['sent', 'channel', 'online', 'device', 'session']);

function isCoreEvent(event: CloudEvent): event is CoreCloudEvent {
  return CORE_EVENTS.has(event.type);
}
