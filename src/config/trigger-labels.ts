/**
 * The trigger label of each repository, as last read from its config file.
 *
 * Most label events carry some other label; reading the config file from GitHub for each of
 * them would cost one or two API calls. A label that is not the remembered trigger is ignored
 * for `ttlMs` without a read; anything that might start a run is always decided on a fresh
 * read. So a changed `label:` takes effect within `ttlMs`.
 */
export class TriggerLabelCache {
  private readonly entries = new Map<number, { label: string; at: number }>();

  constructor(
    private readonly ttlMs = 60_000,
    private readonly now: () => number = Date.now,
    private readonly maxRepositories = 10_000,
  ) {}

  /** True when `label` is known not to be the repository's trigger right now. */
  isKnownOther(repositoryId: number, label: string): boolean {
    const entry = this.entries.get(repositoryId);
    if (!entry) return false;
    if (this.now() - entry.at >= this.ttlMs) {
      this.entries.delete(repositoryId);
      return false;
    }
    return entry.label !== label;
  }

  remember(repositoryId: number, label: string): void {
    this.entries.delete(repositoryId);
    // A Map iterates oldest first: drop the repository remembered longest ago when full.
    if (this.entries.size >= this.maxRepositories) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(repositoryId, { label, at: this.now() });
  }
}

/** What the label handler reads of an `issues.labeled` payload before anything else. */
export interface LabelEventFacts {
  repositoryId: number | undefined;
  label: string | undefined;
  senderIsBot: boolean;
}

export function labelFactsOf(payload: Record<string, unknown>): LabelEventFacts {
  const { label, sender, repository } = payload as {
    label?: { name?: unknown } | null;
    sender?: { type?: unknown } | null;
    repository?: { id?: unknown } | null;
  };
  return {
    repositoryId: typeof repository?.id === 'number' ? repository.id : undefined,
    label: typeof label?.name === 'string' ? label.name : undefined,
    senderIsBot: sender?.type === 'Bot',
  };
}

/**
 * The label handler's first decision, which ingest makes too: a label event that cannot start a
 * run — no label, a bot's (this App's own `agent:done` among them), or a label this process knows
 * is not the repository's trigger — asks nothing, and is stored as handled at ingest.
 */
export function labelStartsNothing(facts: LabelEventFacts, triggers: TriggerLabelCache): boolean {
  if (facts.label === undefined || facts.senderIsBot) return true;
  return facts.repositoryId !== undefined && triggers.isKnownOther(facts.repositoryId, facts.label);
}
