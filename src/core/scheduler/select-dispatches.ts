import { overlapPath } from './overlap.js';
import {
  candidateKey,
  compareCandidates,
  type PathHolder,
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
 * One repository's dispatch decision. Held and over-budget runs, then tasks in backoff, then
 * tasks whose paths overlap a holder's or an earlier candidate's (`input.overlap`), wait without
 * taking a slot; the rest fill the tightest of the repository's, the global and the installation's
 * headroom (its fair share of the global cap, fair-share.ts) in (priority desc, order asc)
 * order. Every candidate ends up in exactly one list. Which candidates wait on an overlap does not
 * depend on the slots (an earlier candidate that finds no slot still claims its paths), so the
 * claim can take that set as given (`overlapWaits`).
 */
export function selectDispatches(input: SchedulerInput): SchedulerDecision {
  const repoRoom = headroom(input.repoLimit, input.repoInflight);
  const globalRoom = headroom(input.globalLimit, input.globalInflight);
  const share = input.installation;
  const installationRoom = share?.room ?? Infinity;
  // Repository wins ties: it is the limit a repository's maintainers can change. The
  // installation's share binds only below the global room: a full cap is the cap's wait.
  const repoBinds = repoRoom <= globalRoom && repoRoom <= installationRoom;
  const installationBinds = !repoBinds && installationRoom < globalRoom;
  const slots = Math.min(repoRoom, globalRoom, installationRoom);

  const dispatch: Candidate[] = [];
  const waiting: SchedulerDecision['waiting'] = [];
  const overflow: Candidate[] = [];

  const claimed: PathHolder[] = [...(input.overlap?.holders ?? [])];
  for (const candidate of [...input.candidates].sort(compareCandidates)) {
    const blocked = blockingReason(input, candidate) ?? overlapReason(input, candidate, claimed);
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
      : installationBinds && share
        ? {
            kind: 'concurrency',
            scope: 'installation',
            limit: share.ceiling,
            inflight: share.running + dispatch.length,
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

/** The first path holder (in flight, or an earlier candidate) this candidate's paths overlap. */
function overlapReason(
  input: SchedulerInput,
  candidate: Candidate,
  claimed: PathHolder[],
): WaitReason | undefined {
  const paths = input.overlap?.paths.get(candidateKey(candidate.runId, candidate.taskId));
  if (!paths) return undefined;
  for (const holder of claimed) {
    if (holder.runId === candidate.runId && holder.taskId === candidate.stackParent) continue;
    const overlap = overlapPath(holder.paths, paths, input.overlap?.budget);
    if (overlap)
      return {
        kind: 'overlap',
        taskId: holder.taskId,
        path: overlap.path,
        ...(holder.runId !== candidate.runId ? { elsewhere: true } : {}),
        ...(overlap.approximate ? { approximate: true } : {}),
      };
  }
  claimed.push({ runId: candidate.runId, taskId: candidate.taskId, paths });
  return undefined;
}

/** The candidates of a decision that wait on an overlap, by `candidateKey`. */
export function overlapWaits(decision: SchedulerDecision): Set<string> {
  return new Set(
    decision.waiting
      .filter((w) => w.reason.kind === 'overlap')
      .map((w) => candidateKey(w.candidate.runId, w.candidate.taskId)),
  );
}
