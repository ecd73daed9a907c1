/** One record in the in-memory index, with its ordering key (createdAt in ms, then insertion sequence). */
export interface IndexEntry<R> {
  record: R;
  time: number;
  seq: number;
}

function isBefore<R>(a: IndexEntry<R>, time: number, seq: number): boolean {
  return a.time < time || (a.time === time && a.seq < seq);
}

/** Index of the first entry not ordered before (time, seq), in an array sorted ascending. */
export function lowerBound<R>(entries: IndexEntry<R>[], time: number, seq: number): number {
  let lo = 0;
  let hi = entries.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (isBefore(entries[mid]!, time, seq)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Inserts keeping ascending order; new records almost always carry the newest createdAt, so usually a push. */
export function insertSorted<R>(entries: IndexEntry<R>[], entry: IndexEntry<R>): void {
  const last = entries[entries.length - 1];
  if (last === undefined || isBefore(last, entry.time, entry.seq)) {
    entries.push(entry);
    return;
  }
  entries.splice(lowerBound(entries, entry.time, entry.seq), 0, entry);
}

/** Removes this exact entry (found by its key) if present. */
export function removeSorted<R>(entries: IndexEntry<R>[], entry: IndexEntry<R>): void {
  const at = lowerBound(entries, entry.time, entry.seq);
  if (entries[at] === entry) entries.splice(at, 1);
}
