/** The worker workflow's inputs (SPEC §6). GitHub wants every value a string. */
export type WorkerInputs = {
  task_id: string;
  issue: string;
  attempt: string;
  mode: 'plan' | 'work' | 'fix';
  title: string;
  prompt: string;
  feedback: string;
  base: string;
  timeout_minutes: string;
  model: string;
  max_turns: string;
};

/** GitHub rejects a workflow_dispatch payload over 65,535 characters; keep room for the rest. */
export const MAX_DISPATCH_PAYLOAD = 65_535;
const RESERVED_FOR_ENVELOPE = 512;

const TRUNCATION_NOTE =
  "\n\n[prompt truncated by agent-coordinator to fit GitHub's dispatch limit]";

export interface WorkerInputSource {
  taskKey: string;
  issueNumber: number;
  attempt: number;
  mode: WorkerInputs['mode'];
  title: string;
  /** The task's own prompt; when absent the default is the title and the issue body. */
  prompt?: string | null;
  issueTitle: string;
  issueBody: string;
  feedback?: string | null;
  base: string;
  timeoutMinutes: number;
  model: string;
  maxTurns: number;
}

export function buildWorkerInputs(source: WorkerInputSource): WorkerInputs {
  const prompt =
    source.prompt ??
    [
      `${source.title}`,
      '',
      `From issue #${source.issueNumber}: ${source.issueTitle}`,
      '',
      source.issueBody,
    ].join('\n');
  const inputs: WorkerInputs = {
    task_id: source.taskKey,
    issue: String(source.issueNumber),
    attempt: String(source.attempt),
    mode: source.mode,
    title: source.title,
    prompt,
    feedback: source.feedback ?? '',
    base: source.base,
    timeout_minutes: String(source.timeoutMinutes),
    model: source.model,
    max_turns: String(source.maxTurns),
  };
  return fitPayload(inputs);
}

/** Cut the prompt (then the feedback) until the JSON payload fits GitHub's limit. */
function fitPayload(inputs: WorkerInputs): WorkerInputs {
  const budget = MAX_DISPATCH_PAYLOAD - RESERVED_FOR_ENVELOPE;
  const sizeOf = (candidate: WorkerInputs) => JSON.stringify({ inputs: candidate }).length;
  let result = inputs;
  for (const field of ['prompt', 'feedback'] as const) {
    if (sizeOf(result) <= budget) break;
    const original = result[field];
    const cut = (keep: number) => ({
      ...result,
      [field]: keep > 0 ? original.slice(0, keep) + TRUNCATION_NOTE : '',
    });
    // JSON escaping makes a character cost 1 to 6: search for the longest prefix that fits.
    let low = 0;
    let high = original.length;
    while (low < high) {
      const mid = Math.ceil((low + high) / 2);
      if (sizeOf(cut(mid)) <= budget) low = mid;
      else high = mid - 1;
    }
    result = cut(low);
  }
  return result;
}
