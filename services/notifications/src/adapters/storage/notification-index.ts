import { AppError } from '@homeops/common';
import { hasWorkLeft, isRinging, type NotificationRecord } from '../../domain/notification.js';
import type { ListQuery, NotificationPage, RecipientSummary } from '../../domain/notification-repository.js';
import { hashId, IdTable } from './id-table.js';
import { bytesAt, decodeAt, RecordArena } from './record-arena.js';
import { decodeId, encodedCreatedAtMs } from './record-codec.js';
import { SlotList } from './slot-list.js';

function timeOf(record: NotificationRecord, encodedMs: number): number {
  if (!Number.isNaN(encodedMs)) return encodedMs;
  const time = Date.parse(record.createdAt);
  return Number.isNaN(time) ? 0 : time;
}

const LIVE = 1;
const READ = 2;

/** The records of a fold, as they were when it started; decoded one at a time while the snapshot is written. */
export interface RecordSequence {
  readonly length: number;
  at(index: number): NotificationRecord | undefined;
}

/** One captured record as the index holds it: its encoded bytes and what the index knows of it. */
export interface EncodedEntry {
  bytes: Buffer;
  time: number;
  recipient: string;
  read: boolean;
  pending: boolean;
  ringing: boolean;
}

/** A fold's capture, with the encoded form too (what the index cache is written from). */
export interface CapturedRecords extends RecordSequence {
  encoded(index: number): EncodedEntry;
}

/** What `put`/`delete` changed, to put it back if the write fails (`restore`). */
export interface IndexUndo {
  kind: 'insert' | 'replace' | 'delete';
  slot: number;
  position: number;
  length: number;
  time: number;
  recipient: number;
  flags: number;
}

interface Group {
  all: SlotList;
  unread: SlotList;
}

/**
 * In-memory indexes of the history, compact enough for a million records: each record is kept encoded in an arena
 * (record-arena.ts, ~half its JSON size) and decoded only when a request touches it; per record slot there are a few
 * typed-array entries (position, length, time, recipient, flags, id hash), the id table and each recipient's sorted
 * lists of slots (all, unread). Slots are numbered in insertion order, which orders records with the same time.
 */
export class NotificationIndex {
  private arena = new RecordArena();
  private capacity = 0;
  private position = new Float64Array(0);
  private length = new Uint32Array(0);
  private time = new Float64Array(0);
  private recipient = new Uint32Array(0);
  private flags = new Uint8Array(0);
  private idHash = new Uint32Array(0);
  private slots = 0;
  private live = 0;
  private liveBytes = 0;
  private readonly ids = new IdTable(
    (slot) => this.idHash[slot]!,
    (slot) => decodeId(this.arena.bytes(this.position[slot]!, this.length[slot]!), 0),
  );
  private readonly recipientNames: string[] = [];
  private readonly recipientNumbers = new Map<string, number>();
  private readonly groups: Group[] = [];
  private readonly pendingSlots = new Set<number>();
  private readonly ringingSlots = new Set<number>();
  private readonly timeAt = (slot: number): number => this.time[slot]!;

  get size(): number {
    return this.live;
  }

  /** Bytes of the records as they are now, and of the arena holding them (with versions not yet reclaimed). */
  get bytes(): { live: number; allocated: number } {
    return { live: this.liveBytes, allocated: this.arena.allocatedBytes };
  }

  has(id: string): boolean {
    return this.ids.find(id, hashId(id)) >= 0;
  }

  /** Loading a snapshot: inserts the record unless its id is already there (resolves false then). */
  insertNew(record: NotificationRecord): boolean {
    const hash = hashId(record.id);
    if (this.ids.find(record.id, hash) >= 0) return false;
    this.store(this.newSlot(), record, hash);
    this.ids.insert(this.slots - 1, hash);
    return true;
  }

  get(id: string): NotificationRecord | undefined {
    const slot = this.ids.find(id, hashId(id));
    return slot < 0 ? undefined : this.decode(slot);
  }

  /**
   * Inserts or replaces the record (encoded: later changes to the object are not seen); returns how to undo it
   * (nothing when `undoable` is false: loading needs no undo).
   */
  put(record: NotificationRecord): IndexUndo;
  put(record: NotificationRecord, undoable: false): undefined;
  put(record: NotificationRecord, undoable = true): IndexUndo | undefined {
    const hash = hashId(record.id);
    let slot = this.ids.find(record.id, hash);
    const kind = slot < 0 ? 'insert' : 'replace';
    if (slot < 0) slot = this.newSlot();
    else this.detach(slot);
    const undo = undoable ? this.undoOf(kind, slot) : undefined;
    this.store(slot, record, hash);
    if (kind === 'insert') this.ids.insert(slot, hash);
    return undo;
  }

  private store(slot: number, record: NotificationRecord, hash: number): void {
    const { position, length } = this.arena.encode(record);
    this.position[slot] = position;
    this.length[slot] = length;
    this.time[slot] = timeOf(record, encodedCreatedAtMs);
    this.recipient[slot] = this.recipientNumber(record.recipient);
    this.flags[slot] = LIVE | (record.read ? READ : 0);
    this.idHash[slot] = hash;
    this.attach(slot, record);
  }

  delete(id: string): IndexUndo | undefined {
    const hash = hashId(id);
    const slot = this.ids.find(id, hash);
    if (slot < 0) return undefined;
    const undo = this.undoOf('delete', slot);
    this.detach(slot);
    this.ids.remove(slot, hash);
    this.flags[slot] = 0;
    return undo;
  }

  /** Puts back what `put`/`delete` changed (undo in reverse order of the changes). */
  restore(_id: string, undo: IndexUndo | undefined): void {
    if (undo === undefined) return;
    const { slot } = undo;
    if (this.flags[slot]! & LIVE) this.detach(slot);
    if (undo.kind === 'insert') {
      this.ids.remove(slot, this.idHash[slot]!);
      this.flags[slot] = 0;
      return;
    }
    this.position[slot] = undo.position;
    this.length[slot] = undo.length;
    this.time[slot] = undo.time;
    this.recipient[slot] = undo.recipient;
    this.flags[slot] = undo.flags;
    if (undo.kind === 'delete') this.ids.insert(slot, this.idHash[slot]!);
    this.attach(slot, this.decode(slot));
  }

  /** A page, newest first; `before` must be a record of this recipient. */
  list(recipient: string, query: ListQuery): NotificationPage {
    const number = this.recipientNumbers.get(recipient);
    let cursor = -1;
    if (query.before !== undefined) {
      cursor = this.ids.find(query.before, hashId(query.before));
      if (cursor < 0 || this.recipient[cursor] !== number) {
        throw new AppError('NOTIFICATION_NOT_FOUND', `Cursor ${query.before} is not a notification of ${recipient}`);
      }
    }
    const group = number === undefined ? undefined : this.groups[number];
    if (group === undefined || group.all.length === 0) return { items: [], total: 0, unread: 0, nextCursor: null };
    const source = query.unreadOnly === true ? group.unread : group.all;
    const end = cursor < 0 ? source.length : source.lowerBound(this.time[cursor]!, cursor);
    const start = Math.max(0, end - Math.max(0, query.limit));
    const items: NotificationRecord[] = [];
    for (let i = end - 1; i >= start; i--) items.push(this.decode(source.at(i)));
    const last = items[items.length - 1];
    return { items, total: group.all.length, unread: group.unread.length, nextCursor: start > 0 && last !== undefined ? last.id : null };
  }

  recipients(): RecipientSummary[] {
    const summaries: RecipientSummary[] = [];
    this.groups.forEach((group, number) => {
      if (group.all.length > 0) summaries.push({ recipient: this.recipientNames[number]!, total: group.all.length, unread: group.unread.length });
    });
    return summaries.sort((a, b) => (a.recipient < b.recipient ? -1 : a.recipient > b.recipient ? 1 : 0));
  }

  unreadOf(recipient: string): NotificationRecord[] {
    const number = this.recipientNumbers.get(recipient);
    const unread = number === undefined ? undefined : this.groups[number]?.unread;
    const records: NotificationRecord[] = [];
    for (let i = 0; i < (unread?.length ?? 0); i++) records.push(this.decode(unread!.at(i)));
    return records;
  }

  /** Records with something left to send (Pushover's delivery or a fallback target pending), oldest first (the order to resume them in). */
  pending(): NotificationRecord[] {
    return this.inOrder(this.pendingSlots);
  }

  /** Emergencies that may still be ringing (sent, not acknowledged, expired or cancelled), oldest first. */
  ringing(): NotificationRecord[] {
    return this.inOrder(this.ringingSlots);
  }

  /**
   * Every record in insertion order, as it is now: the positions are captured, so writes may go on while a fold
   * decodes them one by one.
   */
  records(): CapturedRecords {
    const slots = new Uint32Array(this.live);
    let n = 0;
    for (let slot = 0; slot < this.slots; slot++) if (this.flags[slot]! & LIVE) slots[n++] = slot;
    const positions = Float64Array.from(slots, (slot) => this.position[slot]!);
    const lengths = Uint32Array.from(slots, (slot) => this.length[slot]!);
    const times = Float64Array.from(slots, (slot) => this.time[slot]!);
    const recipients = Uint32Array.from(slots, (slot) => this.recipient[slot]!);
    const flags = Uint8Array.from(
      slots,
      (slot) => (this.flags[slot]! & READ ? 1 : 0) | (this.pendingSlots.has(slot) ? 2 : 0) | (this.ringingSlots.has(slot) ? 4 : 0),
    );
    const chunks = this.arena.view();
    const names = [...this.recipientNames];
    return {
      length: n,
      at: (i) => (i >= 0 && i < n ? decodeAt(chunks, positions[i]!, lengths[i]!) : undefined),
      encoded: (i) => ({
        bytes: bytesAt(chunks, positions[i]!, lengths[i]!),
        time: times[i]!,
        recipient: names[recipients[i]!]!,
        read: (flags[i]! & 1) !== 0,
        pending: (flags[i]! & 2) !== 0,
        ringing: (flags[i]! & 4) !== 0,
      }),
    };
  }

  /** Loading the index cache: a record as the index held it (its id must be new). */
  insertEncoded(entry: EncodedEntry): void {
    const slot = this.newSlot();
    this.position[slot] = this.arena.append(entry.bytes);
    this.length[slot] = entry.bytes.length;
    this.time[slot] = entry.time;
    this.recipient[slot] = this.recipientNumber(entry.recipient);
    this.flags[slot] = LIVE | (entry.read ? READ : 0);
    const hash = hashId(decodeId(entry.bytes, 0));
    this.idHash[slot] = hash;
    this.ids.insert(slot, hash);
    this.attachSlot(slot, entry.pending, entry.ringing);
  }

  /** Records older than `olderThan` or beyond the newest `maxPerRecipient` of their recipient. */
  selectPrunable(rule: { olderThan?: Date; maxPerRecipient?: number }): NotificationRecord[] {
    const cutoff = rule.olderThan?.getTime();
    const selected: NotificationRecord[] = [];
    for (const group of this.groups) {
      const tooOld = cutoff === undefined ? 0 : group.all.lowerBound(cutoff, -Infinity);
      const beyondMax = rule.maxPerRecipient === undefined ? 0 : group.all.length - Math.max(0, rule.maxPerRecipient);
      const count = Math.max(tooOld, beyondMax);
      for (let i = 0; i < count; i++) selected.push(this.decode(group.all.at(i)));
    }
    return selected;
  }

  /**
   * Reclaims space a little at a time, so memory stays flat without long pauses: once versions no longer live take
   * an eighth of the live size (at least 8 MiB), the chunk with the most of them has its live records copied out
   * (at most 4 MiB); slots of removed records are renumbered away once there are as many as live ones. Only call it
   * when no undo is outstanding (no write in flight); a fold in progress keeps reading the chunks it captured.
   */
  compactIfWorthwhile(): boolean {
    const deadSlots = this.slots - this.live;
    if (deadSlots >= Math.max(100_000, this.live)) this.renumberSlots();
    const garbage = this.arena.allocatedBytes - this.liveBytes;
    if (garbage < Math.max(8 * 1024 * 1024, this.liveBytes / 8)) return false;
    return this.reclaimChunk();
  }

  /** Reclaims every chunk holding versions no longer live, and renumbers the slots (tests; see compactIfWorthwhile). */
  compact(): void {
    this.renumberSlots();
    while (this.reclaimChunk()) {
      // one chunk at a time
    }
  }

  /** Copies the live records out of the chunk with the most garbage and drops it; false when there is none. */
  private reclaimChunk(): boolean {
    const target = this.arena.mostGarbage();
    if (target === undefined) return false;
    for (let slot = 0; slot < this.slots; slot++) {
      if (!(this.flags[slot]! & LIVE) || this.arena.chunkOf(this.position[slot]!) !== target.chunk) continue;
      const length = this.length[slot]!;
      const moved = this.arena.append(this.arena.bytes(this.position[slot]!, length));
      this.arena.countLive(this.position[slot]!, length, -1);
      this.arena.countLive(moved, length, 1);
      this.position[slot] = moved;
    }
    this.arena.release(target.chunk);
    return true;
  }

  /** Drops the slots of removed records, keeping the order of the others (lists, sets and the id table follow). */
  private renumberSlots(): void {
    const newSlotOf = new Int32Array(this.slots).fill(-1);
    let next = 0;
    for (let slot = 0; slot < this.slots; slot++) {
      if (!(this.flags[slot]! & LIVE)) continue;
      newSlotOf[slot] = next;
      // next <= slot: copying forward in place is safe.
      this.position[next] = this.position[slot]!;
      this.length[next] = this.length[slot]!;
      this.time[next] = this.time[slot]!;
      this.recipient[next] = this.recipient[slot]!;
      this.flags[next] = this.flags[slot]!;
      this.idHash[next] = this.idHash[slot]!;
      next += 1;
    }
    this.flags.fill(0, next, this.slots);
    this.slots = next;
    for (const group of this.groups) {
      group.all.remap(newSlotOf);
      group.unread.remap(newSlotOf);
    }
    for (const set of [this.pendingSlots, this.ringingSlots]) {
      const remapped = [...set].map((slot) => newSlotOf[slot]!);
      set.clear();
      for (const slot of remapped) set.add(slot);
    }
    this.ids.rebuild(
      Array.from({ length: next }, (_, i) => i),
      next,
    );
  }

  private decode(slot: number): NotificationRecord {
    return this.arena.decode(this.position[slot]!, this.length[slot]!);
  }

  private inOrder(slots: Set<number>): NotificationRecord[] {
    return [...slots].sort((a, b) => this.time[a]! - this.time[b]! || a - b).map((slot) => this.decode(slot));
  }

  private undoOf(kind: IndexUndo['kind'], slot: number): IndexUndo {
    return {
      kind,
      slot,
      position: this.position[slot]!,
      length: this.length[slot]!,
      time: this.time[slot]!,
      recipient: this.recipient[slot]!,
      flags: this.flags[slot]!,
    };
  }

  private newSlot(): number {
    if (this.slots === this.capacity) this.allocate(Math.ceil(this.capacity * 1.5) + 16);
    return this.slots++;
  }

  private allocate(capacity: number): void {
    const grow = <T extends Float64Array | Uint32Array | Uint8Array>(array: T, make: (n: number) => T): T => {
      const next = make(capacity);
      next.set(array.subarray(0, Math.min(this.slots, capacity)) as never);
      return next;
    };
    this.position = grow(this.position, (n) => new Float64Array(n));
    this.length = grow(this.length, (n) => new Uint32Array(n));
    this.time = grow(this.time, (n) => new Float64Array(n));
    this.recipient = grow(this.recipient, (n) => new Uint32Array(n));
    this.flags = grow(this.flags, (n) => new Uint8Array(n));
    this.idHash = grow(this.idHash, (n) => new Uint32Array(n));
    this.capacity = capacity;
  }

  private recipientNumber(name: string): number {
    let number = this.recipientNumbers.get(name);
    if (number === undefined) {
      number = this.recipientNames.length;
      this.recipientNames.push(name);
      this.recipientNumbers.set(name, number);
      this.groups.push({ all: new SlotList(this.timeAt), unread: new SlotList(this.timeAt) });
    }
    return number;
  }

  private attach(slot: number, record: NotificationRecord): void {
    this.attachSlot(slot, hasWorkLeft(record.delivery), isRinging(record));
  }

  private attachSlot(slot: number, pending: boolean, ringing: boolean): void {
    const group = this.groups[this.recipient[slot]!]!;
    group.all.insert(slot);
    if (!(this.flags[slot]! & READ)) group.unread.insert(slot);
    if (pending) this.pendingSlots.add(slot);
    if (ringing) this.ringingSlots.add(slot);
    this.live += 1;
    this.liveBytes += this.length[slot]!;
    this.arena.countLive(this.position[slot]!, this.length[slot]!, 1);
  }

  private detach(slot: number): void {
    const group = this.groups[this.recipient[slot]!]!;
    group.all.remove(slot);
    if (!(this.flags[slot]! & READ)) group.unread.remove(slot);
    this.pendingSlots.delete(slot);
    this.ringingSlots.delete(slot);
    this.live -= 1;
    this.liveBytes -= this.length[slot]!;
    this.arena.countLive(this.position[slot]!, this.length[slot]!, -1);
  }
}
