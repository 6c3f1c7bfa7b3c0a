interface Waiting<Item, Outcome> {
  item: Item;
  resolve: (outcome: Outcome) => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit: items that arrive while a write is in flight go out together in the next one.
 * Alone, an item is written at once; under load one statement and one commit serve many
 * callers. Each caller gets its own item's outcome, or the batch's error.
 */
export class WriteBatcher<Item, Outcome> {
  private readonly waiting: Array<Waiting<Item, Outcome>> = [];
  private writesInFlight = 0;

  constructor(
    /** Returns one outcome per item, in order. */
    private readonly writeMany: (items: Item[]) => Promise<Outcome[]>,
    private readonly maxBatch = 200,
    /** One write commits while the next one fills. */
    private readonly maxInFlight = 2,
  ) {}

  write(item: Item): Promise<Outcome> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      this.next();
    });
  }

  private next(): void {
    if (this.writesInFlight >= this.maxInFlight || this.waiting.length === 0) return;
    const batch = this.waiting.splice(0, this.maxBatch);
    this.writesInFlight += 1;
    this.writeMany(batch.map((w) => w.item))
      .then(
        (outcomes) => {
          if (outcomes.length !== batch.length)
            throw new Error(`a batch of ${batch.length} got ${outcomes.length} outcomes`);
          batch.forEach((w, i) => w.resolve(outcomes[i]!));
        },
        (error: unknown) => batch.forEach((w) => w.reject(error)),
      )
      .catch((error: unknown) => batch.forEach((w) => w.reject(error)))
      .finally(() => {
        this.writesInFlight -= 1;
        this.next();
      });
  }
}
