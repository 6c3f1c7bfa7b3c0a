/**
 * Binary min-heap (by `compare`) with a key → slot index, so remove and re-prioritise are
 * O(log n) exact operations instead of lazy tombstones that pile up in long-lived queues.
 */
export class IndexedHeap<T> {
  private readonly items: T[] = [];
  private readonly slots = new Map<string, number>();

  constructor(
    private readonly keyOf: (item: T) => string,
    private readonly compare: (a: T, b: T) => number,
  ) {}

  get size(): number {
    return this.items.length;
  }

  has(key: string): boolean {
    return this.slots.has(key);
  }

  get(key: string): T | undefined {
    const slot = this.slots.get(key);
    return slot === undefined ? undefined : this.items[slot];
  }

  peek(): T | undefined {
    return this.items[0];
  }

  /** Inserts, or replaces the item with the same key (its position is fixed up). */
  push(item: T): void {
    const key = this.keyOf(item);
    const slot = this.slots.get(key);
    if (slot !== undefined) {
      this.items[slot] = item;
      this.fix(slot);
      return;
    }
    this.items.push(item);
    this.slots.set(key, this.items.length - 1);
    this.up(this.items.length - 1);
  }

  pop(): T | undefined {
    const top = this.items[0];
    if (top === undefined) return undefined;
    this.removeAt(0);
    return top;
  }

  remove(key: string): T | undefined {
    const slot = this.slots.get(key);
    if (slot === undefined) return undefined;
    const item = this.items[slot];
    this.removeAt(slot);
    return item;
  }

  /** Re-sifts an item whose ordering inputs changed outside the heap. */
  update(key: string): void {
    const slot = this.slots.get(key);
    if (slot !== undefined) this.fix(slot);
  }

  values(): IterableIterator<T> {
    return this.items.values();
  }

  private removeAt(slot: number): void {
    this.slots.delete(this.keyOf(this.items[slot] as T));
    const last = this.items.pop() as T;
    if (slot === this.items.length) return;
    this.items[slot] = last;
    this.slots.set(this.keyOf(last), slot);
    this.fix(slot);
  }

  private fix(slot: number): void {
    if (!this.up(slot)) this.down(slot);
  }

  private up(start: number): boolean {
    let slot = start;
    const item = this.items[slot] as T;
    while (slot > 0) {
      const parentSlot = (slot - 1) >> 1;
      const parent = this.items[parentSlot] as T;
      if (this.compare(item, parent) >= 0) break;
      this.place(parent, slot);
      slot = parentSlot;
    }
    if (slot !== start) this.place(item, slot);
    return slot !== start;
  }

  private down(start: number): void {
    const n = this.items.length;
    let slot = start;
    const item = this.items[slot] as T;
    for (;;) {
      const left = 2 * slot + 1;
      if (left >= n) break;
      const right = left + 1;
      let child = left;
      if (right < n && this.compare(this.items[right] as T, this.items[left] as T) < 0) {
        child = right;
      }
      const childItem = this.items[child] as T;
      if (this.compare(childItem, item) >= 0) break;
      this.place(childItem, slot);
      slot = child;
    }
    if (slot !== start) this.place(item, slot);
  }

  private place(item: T, slot: number): void {
    this.items[slot] = item;
    this.slots.set(this.keyOf(item), slot);
  }
}
