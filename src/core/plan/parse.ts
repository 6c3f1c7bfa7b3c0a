import { isAlias, isMap, isSeq, LineCounter, parseDocument } from 'yaml';
import type { Document } from 'yaml';
import { parseTaskBranch } from '../../protocol/branch.js';
import { branchNameProblem } from './branch.js';
import { topologicalOrder, findCycle } from './cycle.js';
import { ErrorList, finishErrors } from './error-list.js';
import { code, truncate, sanitizeForCode } from './quote.js';
import { suggest } from './suggest.js';
import { readTask, unknownKey } from './task.js';
import type { RawTask } from './task.js';
import type { Plan, PlanLimits, PlanResult } from './types.js';
import { PLAN_KEYS } from './types.js';
import { describe, keySegment, keyText, Locator, readText } from './yaml-nodes.js';

interface Pair {
  key: unknown;
  value: unknown;
}

/** Where the YAML sits inside a larger text, so positions can be reported in that text. */
export interface SourceOffset {
  lineOffset: number;
  columnOffset: number;
}

// Suggestions for unknown deps compare against every id; above this size that would make
// validation quadratic, so big plans just get the plain error.
const MAX_IDS_FOR_DEP_SUGGESTIONS = 1000;
const MAX_DEP_SUGGESTIONS = 10;

export function parsePlanYaml(yamlText: string, limits: PlanLimits): PlanResult {
  return parsePlanYamlAt(yamlText, limits, { lineOffset: 0, columnOffset: 0 });
}

export function parsePlanYamlAt(
  yamlText: string,
  limits: PlanLimits,
  offset: SourceOffset,
): PlanResult {
  const lineCounter = new LineCounter();
  const locator = new Locator(lineCounter, offset.lineOffset, offset.columnOffset);
  const errors = new ErrorList(locator);
  const result = validate(yamlText, limits, lineCounter, errors);
  if (errors.length > 0 || !result) return { ok: false, errors: finishErrors(errors.items) };
  return { ok: true, plan: result };
}

function validate(
  yamlText: string,
  limits: PlanLimits,
  lineCounter: LineCounter,
  errors: ErrorList,
): Plan | undefined {
  let doc: Document.Parsed;
  try {
    doc = parseDocument(yamlText, { lineCounter, prettyErrors: false, uniqueKeys: true });
  } catch (e) {
    // the parser recurses on nesting; a pathological document must still be just an error
    const reason = e instanceof Error ? e.message : String(e);
    errors.add('yaml', `the tasks block could not be parsed as YAML (${code(reason)})`);
    return undefined;
  }
  if (doc.errors.length > 0) {
    for (const e of doc.errors) {
      errors.add('yaml', `invalid YAML: ${sanitizeProse(e.message)}`, { node: { range: e.pos } });
    }
    return undefined;
  }

  const root = doc.contents;
  let tasksNode: unknown;
  let prefix = '';
  let base: string | undefined;

  if (readText(root).kind === 'null') {
    errors.add('empty_plan', 'the tasks block is empty; it must list at least one task');
    return undefined;
  }
  if (isSeq(root)) {
    tasksNode = root;
  } else if (isMap(root)) {
    prefix = 'tasks';
    let sawTasks = false;
    for (const pair of root.items as Pair[]) {
      const key = keyText(pair.key);
      if (key === 'tasks') {
        sawTasks = true;
        tasksNode = pair.value;
      } else if (key === 'base') {
        base = readBase(pair, errors);
        if (base !== undefined && limits.planner) base = refusePlannerBase(pair, errors);
      } else {
        unknownKey(key, PLAN_KEYS, 'the plan', { path: pathOf(key), node: pair.key }, errors);
      }
    }
    if (!sawTasks) {
      errors.add('missing_field', 'the plan is a mapping but has no `tasks` list', {
        path: 'tasks',
        node: root,
      });
      return undefined;
    }
    if (readText(tasksNode).kind === 'null') {
      errors.add('empty_plan', 'the plan has no tasks; `tasks` must list at least one task', {
        path: 'tasks',
        node: tasksNode,
      });
      return undefined;
    }
  } else {
    errors.add(
      'not_a_list',
      `the tasks block must be a YAML list of tasks (or a mapping with \`base\` and \`tasks\`), not ${describe(root)}`,
      { node: root },
    );
    return undefined;
  }

  if (!isSeq(tasksNode)) {
    const what = isAlias(tasksNode) ? 'a YAML alias' : describe(tasksNode);
    errors.add('not_a_list', `\`tasks\` must be a YAML list of tasks, not ${what}`, {
      path: 'tasks',
      node: tasksNode,
    });
    return undefined;
  }
  const items = tasksNode.items;
  // Before any per-task work, so an oversized plan costs no more than parsing it.
  if (items.length > limits.maxTasks) {
    errors.add(
      'too_many_tasks',
      `the plan has ${items.length} tasks; the limit is ${limits.maxTasks} (\`plan.maxTasks\`)`,
      { path: prefix || undefined, node: tasksNode },
    );
    return undefined;
  }
  if (items.length === 0) {
    errors.add('empty_plan', 'the plan has no tasks; it must list at least one task', {
      node: tasksNode,
    });
    return undefined;
  }

  const raw = items.map((item, i) => readTask(item, `${prefix}[${i}]`, errors));
  checkGraph(raw, errors);
  if (errors.length > 0) return undefined;

  const tasks = raw.map((t) => t.spec!);
  const plan: Plan = {
    tasks,
    order: topologicalOrder(tasks),
  };
  if (base !== undefined) return { base, ...plan };
  return plan;
}

function pathOf(key: string): string {
  const segment = keySegment(key);
  return segment.startsWith('.') ? segment.slice(1) : segment;
}

function readBase(pair: Pair, errors: ErrorList): string | undefined {
  const where = { path: 'base', node: pair.value ?? pair.key };
  const text = readText(pair.value);
  if (text.kind === 'null') return undefined;
  if (text.kind === 'other') {
    errors.add('invalid_value', `\`base\` must be a branch name, not ${text.description}`, where);
    return undefined;
  }
  const problem = branchNameProblem(text.text);
  if (problem) {
    errors.add(
      'invalid_value',
      `\`base\` ${code(text.text)} is not a valid branch name: ${problem}`,
      where,
    );
    return undefined;
  }
  // A task branch holds an agent's unreviewed work: the run's tasks would start from it and
  // their agents take their configuration from it (docs/worker.md, "Agent configuration").
  if (parseTaskBranch(text.text)) {
    errors.add(
      'invalid_value',
      `\`base\` ${code(text.text)} is a task's branch (agent/<issue>/<task_id>), not a branch people merge into`,
      where,
    );
    return undefined;
  }
  return text.text;
}

/**
 * A planner's `base`: refused whatever branch it names. The planner is an agent the text
 * steers (anyone may have written it), and its prompt asks for no base: one it names moves every
 * task's start, the agent configuration they take, and where their PRs merge (on their own when
 * `merge.requireApproval` is off) onto a branch nobody chose. A person names one in the issue's
 * tasks block or with `/plan`.
 */
function refusePlannerBase(pair: Pair, errors: ErrorList): undefined {
  errors.add(
    'invalid_value',
    "a planner's plan names no `base`: its tasks work against the repository's default branch (a person names another in the issue's tasks block or with `/plan`)",
    { path: 'base', node: pair.key },
  );
  return undefined;
}

/** Duplicate ids, unknown deps, self deps and one cycle, in time linear in the plan. */
function checkGraph(tasks: RawTask[], errors: ErrorList): void {
  const firstIndex = new Map<string, number>();
  tasks.forEach((task, i) => {
    if (task.id === undefined) return;
    const first = firstIndex.get(task.id);
    if (first === undefined) {
      firstIndex.set(task.id, i);
      return;
    }
    errors.add(
      'duplicate_id',
      `the id ${code(task.id)} is used by both ${code(tasks[first]!.path)} and ${code(task.path)}`,
      { path: `${task.path}.id`, taskId: task.id, node: task.idNode },
    );
  });

  let suggestionsLeft = firstIndex.size <= MAX_IDS_FOR_DEP_SUGGESTIONS ? MAX_DEP_SUGGESTIONS : 0;
  const graph: Array<{ id: string; deps: string[] }> = [];
  for (const task of tasks) {
    const id = task.id;
    const label = id !== undefined ? `task ${code(id)}` : `the task at ${code(task.path)}`;
    const where = (dep: { path: string; node: unknown }) => ({
      path: dep.path,
      node: dep.node,
      ...(id !== undefined ? { taskId: id } : {}),
    });
    const known: string[] = [];
    for (const dep of task.deps) {
      if (dep.id === id) {
        errors.add('self_dep', `${label} depends on itself`, where(dep));
      } else if (!firstIndex.has(dep.id)) {
        let hint = '';
        if (suggestionsLeft > 0) {
          suggestionsLeft--;
          const close = suggest(dep.id, firstIndex.keys());
          if (close !== undefined) hint = `; did you mean ${code(close)}?`;
        }
        errors.add(
          'unknown_dep',
          `${label} depends on ${code(dep.id)}, which is not a task in this plan${hint}`,
          where(dep),
        );
      } else {
        known.push(dep.id);
      }
    }
    if (id !== undefined) graph.push({ id, deps: known });
  }

  const cycle = findCycle(graph);
  if (!cycle) return;
  const [from, to] = cycle;
  const fromTask = tasks[firstIndex.get(from!)!]!;
  const edge = fromTask.deps.find((d) => d.id === to);
  errors.add('cycle', `the deps form a cycle: ${cycleText(cycle)}`, {
    path: edge?.path ?? fromTask.path,
    taskId: from!,
    node: edge?.node ?? fromTask.idNode,
    cycle,
  });
}

// Spelled out in full so people can find it, but bounded: a cycle through 5,000 tasks
// must not become a 200 kB status comment.
function cycleText(cycle: string[]): string {
  const text = truncate(cycle.map((id) => sanitizeForCode(id, 60)).join(' -> '), 1000);
  return '`' + text + '`';
}

// The yaml library's messages are fixed English, but some quote the source (an unknown
// tag, say); keep them to one bounded line and without backticks.
function sanitizeProse(message: string): string {
  return sanitizeForCode(message, 300);
}
