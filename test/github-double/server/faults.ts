// Injected failures, consumed per matching request before normal handling.
export interface FaultRule {
  method?: string;
  // Matched against the path after /api/v3 (GraphQL requests are '/graphql').
  path?: RegExp;
  status?: number;
  headers?: Record<string, string>;
  body?: unknown;
  delayMs?: number;
  // Called as the request arrives; it is handled once the promise returned settles (a test
  // holds a call to make something else happen meanwhile).
  hold?: () => Promise<void>;
  // Destroy the socket without answering.
  drop?: boolean;
  times?: number;
}

interface ActiveFault {
  rule: FaultRule;
  remaining: number;
}

export class Faults {
  private readonly active: ActiveFault[] = [];

  add(rule: FaultRule): void {
    this.active.push({ rule, remaining: rule.times ?? 1 });
  }

  clear(): void {
    this.active.length = 0;
  }

  get pending(): number {
    return this.active.reduce((n, f) => n + f.remaining, 0);
  }

  take(method: string, path: string): FaultRule | undefined {
    const index = this.active.findIndex(
      (f) =>
        f.remaining > 0 &&
        (!f.rule.method || f.rule.method.toUpperCase() === method) &&
        (!f.rule.path || f.rule.path.test(path)),
    );
    const hit = this.active[index];
    if (!hit) return undefined;
    hit.remaining -= 1;
    if (hit.remaining <= 0) this.active.splice(index, 1);
    return hit.rule;
  }
}
