import { randomUUID } from 'node:crypto';
import { AppError, type Clock, type Logger, type Timer } from '@homeops/common/core';
import type { DeviceEvent, DeviceEventListener } from '../device-events.js';
import type { DeviceView } from '../device.js';
import type { DeviceServiceHealth } from '../device.service.js';
import { stepEpisode, type EpisodeState } from './episode.js';
import { holdMs, messagesPerHour, type WatchBody, type WatchCondition, type WatchEscalationStep, type WatchSpec } from './watch-spec.js';
import type { DeviceService } from '../device.service.js';
import type { WatchKind, WatchTruth } from './family-watches.js';

/** One notification of an episode, or its end. */
export interface WatchSignal {
  watch: string;
  /** The episode's identity: the same for its firing and its end; random (128 bits), never its start time. */
  episode: string;
  state: 'firing' | 'resolved';
  recipient: string;
  priority: number;
  sound?: string | undefined;
  title: string;
  message: string;
  escalate?: WatchEscalationStep[] | undefined;
}

/** Where a watch's notifications go (the notification service). */
export interface WatchNotifier {
  send(signal: WatchSignal): Promise<void>;
}

/** Where the watches are kept between runs. */
export interface WatchStore {
  load(): Promise<WatchSpec[]>;
  save(watches: readonly WatchSpec[]): Promise<void>;
}

/** What the watches read of the devices. */
export interface WatchedDevices {
  onEvent(listener: DeviceEventListener): () => void;
  /** Tells the event stream a watch's new state. */
  announce(event: Extract<DeviceEvent, { type: 'watch' }>): void;
  listDevices(): DeviceView[];
  /** The families' reads a watch polls (their results arrive as device events). */
  use: DeviceService['use'];
  /** The families that give watch conditions. */
  watchFamilies: DeviceService['watchFamilies'];
  health(): Pick<DeviceServiceHealth, 'budget'>;
}

export interface DeviceWatchesDeps {
  devices: WatchedDevices;
  /** Undefined without NOTIFY_URL: watches are then refused. */
  notifier: WatchNotifier | undefined;
  store: WatchStore;
  clock: Clock;
  logger: Logger;
  /** A new episode's id; default a random UUID (unguessable: it is what the notification service knows the alarm by). */
  newEpisodeId?: () => string;
}

/** A watch as GET /watches shows it. */
export interface WatchView extends WatchSpec {
  state: EpisodeState['kind'];
  /** Cloud messages per hour its readings cost (0 for pushes, and while its device is reached over the LAN). */
  messagesPerHour: number;
}

/** What is known of one device from its events and reads: its presence, and what each family keeps of its events. */
interface Observed {
  online?: boolean;
  families: Map<string, unknown>;
}

/** A family's condition kind, with the family that gives it. */
type FamilyKind = WatchKind & { family: ReturnType<WatchedDevices['watchFamilies']>[number] };

interface Running {
  spec: WatchSpec;
  state: EpisodeState;
  wake?: Timer;
}

/** Watches kept at most: each is evaluated on every event of its device. */
export const MAX_WATCHES = 100;
/** The share of the hourly message budget all watches together may plan to spend (the background share). */
const WATCH_SHARE = 0.5;
/** A failed notification is tried again after these waits, then given up (logged). */
const SEND_RETRIES_MS = [1_000, 5_000, 30_000];

/**
 * The device watches: each follows its condition from device events (presence, a family's pushes: free) and from
 * reads it polls (budgeted, never beyond the background share), and runs its episodes (`stepEpisode`). The families
 * give the conditions beyond `offline` (DomainFamily.watches).
 */
export class DeviceWatches {
  private readonly running = new Map<string, Running>();
  private readonly observed = new Map<string, Observed>();
  private readonly polls = new Map<string, Timer>();
  private unsubscribe: (() => void) | undefined;
  private readonly sending = new Set<Promise<void>>();

  /** The condition kinds of the families, by kind. */
  private readonly kinds: Map<string, FamilyKind>;

  constructor(private readonly deps: DeviceWatchesDeps) {
    const families = deps.devices.watchFamilies();
    this.kinds = new Map(families.flatMap((family) => family.watches.conditions.map((kind) => [kind.kind, { ...kind, family }] as const)));
  }

  private kindOf(condition: WatchCondition): FamilyKind | undefined {
    return this.kinds.get(condition.kind);
  }

  /** Reads the kept watches; throws (the start stops) when the store cannot be read. */
  async load(): Promise<void> {
    for (const spec of await this.deps.store.load()) this.running.set(spec.name, { spec, state: this.initialState(spec.condition) });
  }

  /** Follows the devices: call once their list is known (after the device service started). */
  start(): void {
    this.unsubscribe ??= this.deps.devices.onEvent((event) => this.onEvent(event));
    this.armPolls();
    for (const name of this.running.keys()) this.evaluate(name);
  }

  async stop(): Promise<void> {
    this.unsubscribe?.();
    for (const timer of this.polls.values()) timer.cancel();
    this.polls.clear();
    for (const watch of this.running.values()) watch.wake?.cancel();
    await Promise.allSettled([...this.sending]);
  }

  list(): WatchView[] {
    return [...this.running.values()].map(({ spec, state }) => ({
      ...spec,
      notify: { ...spec.notify, priority: this.priorityOf(spec) },
      state: state.kind,
      messagesPerHour: this.costOf(spec.condition),
    }));
  }

  get(name: string): WatchView {
    const view = this.list().find((w) => w.name === name);
    if (!view) throw new AppError('WATCH_NOT_FOUND', `No watch "${name}"`);
    return view;
  }

  /** Creates or replaces a watch; refused when its readings would not fit the budget beside the others'. */
  async put(name: string, body: WatchBody): Promise<WatchView> {
    if (!this.deps.notifier) throw new AppError('WATCHES_OFF');
    if (!this.running.has(name) && this.running.size >= MAX_WATCHES) throw new AppError('LIMIT_REACHED', `At most ${MAX_WATCHES} watches are kept`);
    this.assertDevice(body.condition);
    const others = [...this.running.values()].filter((w) => w.spec.name !== name).reduce((sum, w) => sum + this.costOf(w.spec.condition), 0);
    const cost = this.costOf(body.condition);
    const hour = this.deps.devices.health().budget.windows.find((w) => w.window === 'hour');
    const allowed = Math.floor((hour?.limit ?? 0) * WATCH_SHARE);
    if (cost > 0 && others + cost > allowed) {
      throw new AppError(
        'WATCH_OVER_BUDGET',
        `This watch reads ${cost} cloud messages per hour; with the other watches' ${others} that is more than the ${allowed} per hour watches may use (half the hourly budget)`,
        { solution: 'Raise pollSeconds, remove another watch, or reach the device over the LAN (docs/local-control.md)' },
      );
    }
    const previous = this.running.get(name);
    previous?.wake?.cancel();
    const spec: WatchSpec = { name, ...body };
    this.running.set(name, { spec, state: this.initialState(spec.condition) });
    await this.save();
    this.armPolls();
    this.evaluate(name);
    return this.get(name);
  }

  async remove(name: string): Promise<void> {
    const watch = this.running.get(name);
    if (!watch) throw new AppError('WATCH_NOT_FOUND', `No watch "${name}"`);
    watch.wake?.cancel();
    this.running.delete(name);
    await this.save();
    this.armPolls();
  }

  /** The devices as known now; none while the list was never loaded (the cloud down at start). */
  private deviceList(): DeviceView[] {
    try {
      return this.deps.devices.listDevices();
    } catch {
      return [];
    }
  }

  private save(): Promise<void> {
    return this.deps.store.save([...this.running.values()].map((w) => w.spec));
  }

  private assertDevice(condition: WatchCondition): void {
    const device = this.deviceList().find((d) => d.uuid === condition.device);
    if (!device) throw new AppError('DEVICE_NOT_FOUND', `No device ${condition.device}; see GET /devices`);
    const needs = this.kindOf(condition)?.needs;
    if (needs && !device.capabilities.includes(needs)) {
      throw new AppError('VALIDATION_FAILED', `${device.name} has no ${needs}: a ${condition.kind} watch cannot follow it`, {
        details: [{ path: 'body.condition.device', message: `has no ${needs}` }],
      });
    }
  }

  private costOf(condition: WatchCondition): number {
    const device = this.deviceList().find((d) => d.uuid === condition.device);
    return device?.link.transport === 'lan' ? 0 : messagesPerHour(condition);
  }

  private observedOf(uuid: string): Observed {
    let seen = this.observed.get(uuid);
    if (!seen) {
      const device = this.deviceList().find((d) => d.uuid === uuid);
      seen = { families: new Map(), ...(device ? { online: device.status === 'online' } : {}) };
      this.observed.set(uuid, seen);
    }
    return seen;
  }

  private onEvent(event: DeviceEvent): void {
    const uuid = 'uuid' in event ? event.uuid : event.type === 'device' ? event.device.uuid : undefined;
    if (uuid === undefined || event.type === 'watch') return;
    const seen = this.observedOf(uuid);
    if (event.type === 'online') seen.online = event.online;
    else if (event.type === 'device') seen.online = event.device.online;
    else if (!this.observe(event, seen)) return;
    for (const [name, watch] of this.running) if (watch.spec.condition.device === uuid) this.evaluate(name);
  }

  /** Whether a family keeps something of the event (then its watches are evaluated again). */
  private observe(event: DeviceEvent, seen: Observed): boolean {
    let kept = false;
    for (const { capability, watches } of new Set([...this.kinds.values()].map((kind) => kind.family))) {
      const known = watches.observe(event, seen.families.get(capability));
      if (known === undefined) continue;
      seen.families.set(capability, known);
      kept = true;
    }
    return kept;
  }

  /** Whether the condition holds for what is known (undefined: not known yet), and whether it arms the watch. */
  private truthOf(condition: WatchCondition, seen: Observed): WatchTruth {
    if (condition.kind === 'offline') return { holds: seen.online === undefined ? undefined : !seen.online, arms: false };
    const kind = this.kindOf(condition);
    return kind ? kind.truth(condition, seen.families.get(kind.family.capability)) : { holds: undefined, arms: false };
  }

  /** The watch's own priority, else its condition's, else 0. */
  private priorityOf(spec: WatchSpec): number {
    return spec.notify.priority ?? this.kindOf(spec.condition)?.priority ?? 0;
  }

  private needsArming(condition: WatchCondition): boolean {
    return this.kindOf(condition)?.needsArming?.(condition) ?? false;
  }

  private initialState(condition: WatchCondition): EpisodeState {
    return { kind: 'quiet', armed: !this.needsArming(condition) };
  }

  /** The default title and message of a watch's notification. */
  private describe(spec: WatchSpec, deviceName: string): { title: string; message: string } {
    const c = spec.condition;
    if (c.kind === 'offline') return { title: `${deviceName} is offline`, message: `Offline for more than ${c.minutes} minutes` };
    return this.kindOf(c)?.describe(c, deviceName) ?? { title: `${deviceName}: ${c.kind}`, message: c.kind };
  }

  /** Feeds what is known to the watch's episode, and acts on the step. */
  private evaluate(name: string): void {
    const watch = this.running.get(name);
    if (!watch) return;
    const { condition } = watch.spec;
    const { holds, arms } = this.truthOf(condition, this.observedOf(condition.device));
    const now = this.deps.clock.now();
    const step = stepEpisode(watch.state, {
      holds,
      arms,
      now,
      holdMs: holdMs(condition),
      clearMs: watch.spec.clearSeconds * 1000,
      armedAfterEnd: !this.needsArming(condition),
      newEpisodeId: this.deps.newEpisodeId ?? randomUUID,
    });
    const before = watch.state.kind;
    watch.state = step.state;
    if (step.state.kind !== before) {
      this.deps.devices.announce({ type: 'watch', name, uuid: condition.device, state: step.state.kind, at: new Date(now).toISOString() });
    }
    watch.wake?.cancel();
    delete watch.wake;
    if (step.wakeAt !== undefined) watch.wake = this.deps.clock.setTimer(() => this.evaluate(name), Math.max(0, step.wakeAt - now));
    if (step.send) this.send(watch.spec, step.send.state, step.send.episode);
  }

  private send(spec: WatchSpec, state: 'firing' | 'resolved', episode: string): void {
    const notifier = this.deps.notifier;
    if (!notifier) return;
    const text = this.describe(spec, this.deviceList().find((d) => d.uuid === spec.condition.device)?.name ?? spec.condition.device);
    const signal: WatchSignal = {
      watch: spec.name,
      episode,
      state,
      recipient: spec.notify.recipient,
      priority: this.priorityOf(spec),
      sound: spec.notify.sound,
      title: spec.notify.title ?? text.title,
      message: state === 'firing' ? (spec.notify.message ?? text.message) : `${spec.notify.title ?? text.title}: over`,
      ...(spec.notify.escalate && state === 'firing' ? { escalate: spec.notify.escalate } : {}),
    };
    const attempt = async (tries: number): Promise<void> => {
      try {
        await notifier.send(signal);
        this.deps.logger.info({ watch: spec.name, state, episode }, `watch ${spec.name}: ${state} sent`);
      } catch (err) {
        const wait = SEND_RETRIES_MS[tries];
        this.deps.logger.warn(
          { watch: spec.name, state, error: (err as Error).message, retryInMs: wait ?? null },
          `watch ${spec.name}: the notification could not be sent`,
        );
        if (wait === undefined) return;
        await new Promise<void>((resolve) => this.deps.clock.setTimer(resolve, wait));
        await attempt(tries + 1);
      }
    };
    const run = attempt(0).finally(() => this.sending.delete(run));
    this.sending.add(run);
  }

  /** One poll timer per device whose watches need reads, at the shortest interval any of them asks for. */
  private armPolls(): void {
    const wanted = new Map<string, { ms: number; read: FamilyKind }>();
    for (const { spec } of this.running.values()) {
      const c = spec.condition;
      const read = this.kindOf(c);
      if (!('pollSeconds' in c) || !read?.poll) continue;
      const ms = Math.min(c.pollSeconds * 1000, wanted.get(c.device)?.ms ?? Infinity);
      wanted.set(c.device, { ms, read });
    }
    for (const [uuid, timer] of this.polls) {
      timer.cancel();
      this.polls.delete(uuid);
    }
    for (const [uuid, { ms, read }] of wanted) this.schedulePoll(uuid, read, ms, 0);
  }

  private schedulePoll(uuid: string, read: FamilyKind, everyMs: number, delayMs: number): void {
    this.polls.set(
      uuid,
      this.deps.clock.setTimer(() => {
        void this.poll(uuid, read).finally(() => {
          if (this.polls.has(uuid)) this.schedulePoll(uuid, read, everyMs, everyMs);
        });
      }, delayMs),
    );
  }

  /** A read that goes to the cloud only with room beyond the callers' share; its result arrives as a device event. */
  private async poll(uuid: string, read: FamilyKind): Promise<void> {
    const device = this.deviceList().find((d) => d.uuid === uuid);
    if (!device || device.status !== 'online') return;
    const room = this.deps.devices.health().budget.windows.every((w) => w.remaining - w.reservedForCallers >= 2);
    if (device.link.transport !== 'lan' && !room) return;
    try {
      await read.poll?.(this.deps.devices.use(read.family), uuid);
    } catch (err) {
      this.deps.logger.debug({ uuid, error: (err as Error).message }, 'watch: a read failed; it is tried again at the next poll');
    }
  }
}
