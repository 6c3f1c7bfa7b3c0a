import { flattenLine } from '../core/inert-markdown.js';
import { TASK_KEY } from '../protocol/identifiers.js';
import type { WorkerEnv } from './env.js';
import { checksSection, reviewSection, untrustedNote } from './feedback-prompt.js';

type PromptEnv = Pick<
  WorkerEnv,
  'issue' | 'owner' | 'repo' | 'taskId' | 'attempt' | 'branch' | 'title' | 'prompt' | 'feedback'
>;

const HANDS_OFF_GIT =
  'Do not commit, push, reset or switch branches: the worker commits whatever you leave in the working tree and updates the pull request.';

function taskSection(env: PromptEnv): string[] {
  const lines = [`## Task ${env.taskId}: ${env.title}`];
  if (env.prompt.trim()) lines.push('', env.prompt);
  return lines;
}

/**
 * A path on one line of the prompt. The earlier attempt's agent chose the names in its branch, and
 * git allows any byte but NUL in one: a conflicted file named with line breaks would otherwise add
 * lines of its author's to the prompt, a heading among them (docs/security.md, "A prompt-injected
 * task agent"). Such a name is shown as a JSON string, its line breaks and invisible characters
 * escaped, so it still names the file.
 */
function pathLine(path: string): string {
  if (flattenLine(path) === path) return path;
  return [...JSON.stringify(path)]
    .map((c) =>
      flattenLine(c) === c ? c : `\\u${c.codePointAt(0)!.toString(16).padStart(4, '0')}`,
    )
    .join('');
}

function feedbackSection(feedback: string, heading: string): string[] {
  return feedback.trim() ? ['', `## ${heading}`, '', feedback] : [];
}

export function workPrompt(env: PromptEnv & { base: string }): string {
  return [
    `You are working on GitHub issue #${env.issue} of ${env.owner}/${env.repo} (task ${env.taskId}, attempt ${env.attempt}).`,
    `The repository is checked out in the current directory on branch ${env.branch}, which starts from ${env.base}.`,
    'Make the change the task below asks for, and only that: other tasks of the issue are done separately.',
    "Run the project's tests or checks when you can.",
    HANDS_OFF_GIT,
    '',
    ...taskSection(env),
    ...feedbackSection(env.feedback, 'Feedback on an earlier attempt'),
    '',
  ].join('\n');
}

export function fixPrompt(
  env: PromptEnv &
    Pick<WorkerEnv, 'review' | 'checks'> & {
      base: string;
      conflicts: string[];
      /** The branch ends with the work of an attempt stopped at its time limit. */
      continuing?: boolean;
    },
): string {
  const lines = [
    `You are fixing the pull request of task ${env.taskId} for GitHub issue #${env.issue} of ${env.owner}/${env.repo} (attempt ${env.attempt}).`,
    `The repository is checked out in the current directory on branch ${env.branch}, with the pull request's commits.`,
  ];
  if (env.conflicts.length > 0) {
    lines.push(
      '',
      '## Merge conflicts',
      '',
      `Merging ${env.base} into this branch stopped with conflicts in these files:`,
      ...env.conflicts.map((f) => `- ${pathLine(f)}`),
      '',
      'Resolve every conflict so that both the task and the changes on the base branch keep working, and remove all conflict markers.',
      'Do not run git merge --abort: the worker concludes the merge.',
    );
  } else {
    lines.push(`${env.base} has already been merged into the branch without conflicts.`);
  }
  if (env.continuing) {
    lines.push(
      '',
      '## Unfinished work',
      '',
      "An earlier attempt was stopped at its time limit before it finished; what it had done is in the branch's commits (the last of them starts with [partial]). Finish the task, building on that work rather than starting over.",
      '',
    );
  }
  lines.push(
    HANDS_OFF_GIT,
    ...untrustedNote(env.review, env.checks),
    ...feedbackSection(env.feedback, 'Feedback to address'),
    ...reviewSection(env.review),
    ...checksSection(env.checks),
    '',
    ...taskSection(env),
    '',
  );
  return lines.join('\n');
}

export function planPrompt(
  env: PromptEnv & { maxTasks: number },
  issue: { title: string; body: string },
): string {
  return [
    `You are planning the work for GitHub issue #${env.issue} of ${env.owner}/${env.repo}. The repository is checked out in the current directory: read it, but change nothing.`,
    '',
    'Split the issue into small coding tasks, each one reviewable as its own pull request, and',
    'answer with exactly one fenced code block whose info string is `tasks`, holding a YAML list:',
    '',
    '```tasks',
    '- id: task_001',
    '  title: Define the login API signature',
    '  type: code_edit',
    '  deps: []',
    '- id: task_002',
    '  title: Implement login',
    '  deps: [task_001]',
    '  prompt: |',
    '    Implement POST /login using the signature from task_001.',
    '  priority: 4',
    '  files: [src/login/**]',
    '```',
    '',
    'Rules:',
    `- id matches ${TASK_KEY.source} and is unique; title is one line.`,
    '- Allowed keys: id, title, type, deps, prompt, priority (1 lowest .. 5 highest), timeoutMinutes, files. No other keys.',
    '- deps lists ids of tasks that must be merged first; no cycles.',
    '- files lists the paths each task expects to touch, as globs relative to the repository root (`src/login/**`, `docs/api.md`); name them for every task: tasks whose files overlap are not run at the same time, so they do not conflict.',
    `- At most ${env.maxTasks} tasks.`,
    "- A task's prompt is all its worker will know besides the repository: make it self-contained.",
    '',
    `## Issue #${env.issue}: ${issue.title}`,
    '',
    issue.body,
    ...feedbackSection(env.feedback, 'Feedback on an earlier plan'),
    '',
  ].join('\n');
}
