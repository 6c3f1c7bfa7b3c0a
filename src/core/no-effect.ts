/**
 * The one effect of an event that changes nothing, with why: every "not yet" and every "not
 * ours" of a decide… function says its reason, which the engine logs.
 */
export interface NoEffect {
  kind: 'none';
  reason: string;
}

export function nothing(reason: string): [NoEffect] {
  return [{ kind: 'none', reason }];
}
