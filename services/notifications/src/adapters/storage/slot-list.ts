/**
 * Record slots sorted by (time, slot): the order of a recipient's history (slots are numbered in insertion order,
 * so the slot breaks ties as the insertion sequence did). Kept in a growable Uint32Array: 4 bytes per record.
 */
export class SlotList {
  items = new Uint32Array(4);
  length = 0;

  constructor(private readonly timeOf: (slot: number) => number) {}

  at(i: number): number {
    return this.items[i]!;
  }

  /** Index of the first slot not ordered before (time, slot). */
  lowerBound(time: number, slot: number): number {
    let lo = 0;
    let hi = this.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const s = this.items[mid]!;
      const t = this.timeOf(s);
      if (t < time || (t === time && s < slot)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Inserts keeping the order; new records almost always sort last, so usually an append. */
  insert(slot: number): void {
    if (this.length === this.items.length) this.grow();
    const time = this.timeOf(slot);
    const last = this.length > 0 ? this.items[this.length - 1]! : -1;
    if (last < 0 || this.timeOf(last) < time || (this.timeOf(last) === time && last < slot)) {
      this.items[this.length++] = slot;
      return;
    }
    const at = this.lowerBound(time, slot);
    this.items.copyWithin(at + 1, at, this.length);
    this.items[at] = slot;
    this.length += 1;
  }

  /** Removes the slot (found by its current time) if present. */
  remove(slot: number): void {
    const at = this.lowerBound(this.timeOf(slot), slot);
    if (at >= this.length || this.items[at] !== slot) return;
    this.items.copyWithin(at, at + 1, this.length);
    this.length -= 1;
  }

  /** Renumbers every slot after a compaction (the mapping keeps the order). */
  remap(newSlotOf: Int32Array): void {
    for (let i = 0; i < this.length; i++) this.items[i] = newSlotOf[this.items[i]!]!;
  }

  private grow(): void {
    const next = new Uint32Array(Math.ceil(this.items.length * 1.5) + 4);
    next.set(this.items.subarray(0, this.length));
    this.items = next;
  }
}
