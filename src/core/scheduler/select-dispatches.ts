import {
  compareCandidates,
  type Candidate,
  type SchedulerDecision,
  type SchedulerInput,
  type WaitReason,
} from './types.js';

/** Free worker slots; negative headroom (a limit lowered below what runs) is no headroom. */
function headroom(limit: number, inflight: number): number {
  return Math.max(0, limit - inflight);
}

/**
 * One repository's dispatch decision. Held and over-budget runs, then tasks in backoff, wait
 * without taking a slot; the rest fill the tighter of the repository and global headroom in
 * (priority desc, order asc) order. Every candidate ends up in exactly one list.
 */
export function selectDispatches(input: SchedulerInput): SchedulerDecision {
  const repoRoom = headroom(input.repoLimit, input.repoInflight);
  const globalRoom = headroom(input.globalLimit, input.globalInflight);
  // Repository wins ties: it is the limit a repository's maintainers can change.
  const repoBinds = repoRoom <= globalRoom;
  const slots = Math.min(repoRoom, globalRoom);

  const dispatch: Candidate[] = [];
  const waiting: SchedulerDecision['waiting'] = [];
  const overflow: Candidate[] = [];

  for (const candidate of [...input.candidates].sort(compareCandidates)) {
    const blocked = blockingReason(input, candidate);
    if (blocked) waiting.push({ candidate, reason: blocked });
    else if (dispatch.length < slots) dispatch.push(candidate);
    else overflow.push(candidate);
  }

  if (overflow.length > 0) {
    const reason: WaitReason = repoBinds
      ? {
          kind: 'concurrency',
          scope: 'repository',
          limit: input.repoLimit,
          inflight: input.repoInflight + dispatch.length,
        }
      : {
          kind: 'concurrency',
          scope: 'global',
          limit: input.globalLimit,
          inflight: input.globalInflight + dispatch.length,
        };
    for (const candidate of overflow) waiting.push({ candidate, reason });
  }

  return { dispatch, waiting };
}

function blockingReason(input: SchedulerInput, candidate: Candidate): WaitReason | undefined {
  if (input.heldRuns.has(candidate.runId)) return { kind: 'held' };
  if (input.budgetExhaustedRuns.has(candidate.runId)) return { kind: 'budget' };
  if (candidate.backoffUntil !== undefined && candidate.backoffUntil > input.now) {
    return { kind: 'backoff', until: candidate.backoffUntil };
  }
  return undefined;
}
