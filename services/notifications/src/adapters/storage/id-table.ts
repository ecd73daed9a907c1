const EMPTY = 0;
const TOMBSTONE = -1;

/** FNV-1a over the UTF-16 units of an id. */
export function hashId(id: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) {
    h ^= id.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/**
 * id → slot, by open addressing in one Int32Array (8 bytes a record at most half full), instead of a Map of
 * strings. The slot's stored hash and id come from the caller (`hashOf`, `idOf`).
 */
export class IdTable {
  private table = new Int32Array(1024);
  private filled = 0;

  constructor(
    private readonly hashOf: (slot: number) => number,
    private readonly idOf: (slot: number) => string,
  ) {}

  find(id: string, hash: number): number {
    const mask = this.table.length - 1;
    for (let i = hash & mask; ; i = (i + 1) & mask) {
      const entry = this.table[i]!;
      if (entry === EMPTY) return -1;
      if (entry !== TOMBSTONE && this.hashOf(entry - 1) === hash && this.idOf(entry - 1) === id) return entry - 1;
    }
  }

  insert(slot: number, hash: number): void {
    if ((this.filled + 1) * 2 > this.table.length) this.resize(this.table.length * 2);
    const mask = this.table.length - 1;
    let i = hash & mask;
    while (this.table[i]! > 0) i = (i + 1) & mask;
    if (this.table[i] === EMPTY) this.filled += 1;
    this.table[i] = slot + 1;
  }

  remove(slot: number, hash: number): void {
    const mask = this.table.length - 1;
    for (let i = hash & mask; this.table[i] !== EMPTY; i = (i + 1) & mask) {
      if (this.table[i] === slot + 1) {
        this.table[i] = TOMBSTONE;
        return;
      }
    }
  }

  /** Rebuilt from the live slots (after a compaction renumbered them). */
  rebuild(slots: Iterable<number>, count: number): void {
    let size = 1024;
    while (size < count * 2 + 2) size *= 2;
    this.table = new Int32Array(size);
    this.filled = 0;
    for (const slot of slots) this.insert(slot, this.hashOf(slot));
  }

  private resize(size: number): void {
    const old = this.table;
    this.table = new Int32Array(size);
    this.filled = 0;
    for (const entry of old) if (entry > 0) this.insert(entry - 1, this.hashOf(entry - 1));
  }
}
