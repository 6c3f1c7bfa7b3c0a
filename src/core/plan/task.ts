import { isAlias, isMap, isSeq } from 'yaml';
import { globProblem, MAX_GLOBS } from '../glob.js';
import type { ErrorList } from './error-list.js';
import { code, countCodePoints } from './quote.js';
import { suggest } from './suggest.js';
import type { TaskSpec } from './types.js';
import {
  DEFAULT_PRIORITY,
  DEFAULT_TYPE,
  ID_PATTERN,
  MAX_PROMPT_CHARS,
  MAX_TIMEOUT_MINUTES,
  MAX_TITLE_CHARS,
  PLAN_TASK_KEY,
  TASK_KEYS,
} from './types.js';
import { describe, keySegment, keyText, readText } from './yaml-nodes.js';

export interface DepRef {
  id: string;
  path: string;
  node: unknown;
}

/** A task as read, before graph checks; `id` is kept even when malformed. */
export interface RawTask {
  path: string;
  id?: string;
  idNode?: unknown;
  deps: DepRef[];
  spec?: TaskSpec;
}

interface Pair {
  key: unknown;
  value: unknown;
}

const LINE_BREAK = /[\r\n\u2028\u2029\u0085]/;

/** Validate one task mapping; `path` is '[2]' or 'tasks[2]'. */
export function readTask(node: unknown, path: string, errors: ErrorList): RawTask {
  const task: RawTask = { path, deps: [] };
  if (isAlias(node)) {
    const message = `${code(path)} is a YAML alias; aliases are not supported in a plan`;
    errors.add('invalid_value', message, { path, node });
    return task;
  }
  if (!isMap(node)) {
    errors.add(
      'invalid_value',
      `${code(path)} must be a mapping with at least \`id\` and \`title\`, not ${describe(node)}`,
      { path, node },
    );
    return task;
  }
  const pairs = node.items as Pair[];
  const errorsBefore = errors.length;

  // The id first, so every other error can name its task.
  const idPair = pairs.find((p) => keyText(p.key) === 'id');
  let id: string | undefined;
  if (idPair) {
    const text = readText(idPair.value);
    if (text.kind === 'text') {
      id = text.text;
      task.id = id;
      task.idNode = idPair.value;
    }
  }
  const label = id !== undefined ? `task ${code(id)}` : `the task at ${code(path)}`;
  const at = (key: string, valueNode: unknown) => ({
    path: path + keySegment(key),
    node: valueNode,
    ...(id !== undefined ? { taskId: id } : {}),
  });

  let title: string | undefined;
  let type = DEFAULT_TYPE;
  let deps: string[] = [];
  let prompt: string | undefined;
  let priority = DEFAULT_PRIORITY;
  let timeoutMinutes: number | undefined;
  let files: string[] | undefined;

  for (const pair of pairs) {
    const key = keyText(pair.key);
    const value = pair.value;
    const where = at(key, value ?? pair.key);
    if (isAlias(value)) {
      errors.add(
        'invalid_value',
        `${code(key)} of ${label} is a YAML alias; aliases are not supported in a plan`,
        where,
      );
      continue;
    }
    switch (key) {
      case 'id':
        checkId(value, label, where, errors);
        break;
      case 'title':
        title = readTitle(value, label, where, errors);
        break;
      case 'type':
        type = readType(value, label, where, errors) ?? type;
        break;
      case 'deps':
        deps = readDeps(value, label, where.path, task, errors) ?? deps;
        break;
      case 'prompt':
        prompt = readPrompt(value, label, where, errors);
        break;
      case 'priority':
        priority = readInt(value, 'priority', 1, 5, label, where, errors) ?? priority;
        break;
      case 'timeoutMinutes':
        timeoutMinutes = readInt(
          value,
          'timeoutMinutes',
          1,
          MAX_TIMEOUT_MINUTES,
          label,
          where,
          errors,
        );
        break;
      case 'files':
        files = readFiles(value, label, where.path, task.id, errors);
        break;
      default:
        unknownKey(key, TASK_KEYS, label, { ...where, node: pair.key }, errors);
    }
  }

  if (!idPair) {
    errors.add('missing_field', `${label} has no \`id\``, { path, node });
  }
  if (!pairs.some((p) => keyText(p.key) === 'title')) {
    errors.add('missing_field', `${label} has no \`title\``, at('title', node));
  }

  if (errors.length === errorsBefore && id !== undefined && title !== undefined) {
    task.spec = {
      id,
      title,
      type,
      deps,
      ...(prompt !== undefined ? { prompt } : {}),
      priority,
      ...(timeoutMinutes !== undefined ? { timeoutMinutes } : {}),
      ...(files !== undefined ? { files } : {}),
    };
  }
  return task;
}

type WhereArg = Parameters<ErrorList['add']>[2];

/** An unknown key, with a did-you-mean when one of `allowed` is close. */
export function unknownKey(
  key: string,
  allowed: readonly string[],
  owner: string,
  where: WhereArg,
  errors: ErrorList,
): void {
  const hint = suggest(key, allowed);
  const shown = key === '' ? 'an empty or complex key' : `the unknown key ${code(key)}`;
  const help = hint
    ? `did you mean \`${hint}\`?`
    : `allowed keys are ${allowed.map((k) => `\`${k}\``).join(', ')}`;
  errors.add('unknown_field', `${owner} has ${shown}; ${help}`, where);
}

function checkId(value: unknown, label: string, where: WhereArg, errors: ErrorList): void {
  const text = readText(value);
  if (text.kind === 'null') {
    errors.add('missing_field', `${label} has an empty \`id\``, where);
  } else if (text.kind === 'other') {
    errors.add(
      'invalid_id',
      `the \`id\` of ${label} must be a string, not ${text.description}`,
      where,
    );
  } else if (!ID_PATTERN.test(text.text)) {
    errors.add(
      'invalid_id',
      `id ${code(text.text)} is not valid: ids are 1 to 40 lowercase letters, digits, \`_\` or \`-\`, starting with a letter or digit`,
      where,
    );
  } else if (text.text === PLAN_TASK_KEY) {
    errors.add(
      'invalid_id',
      `id ${code(text.text)} is reserved for the planner; choose another id`,
      where,
    );
  }
}

function readTitle(
  value: unknown,
  label: string,
  where: WhereArg,
  errors: ErrorList,
): string | undefined {
  const text = readText(value);
  if (text.kind === 'null') {
    errors.add('missing_field', `${label} has an empty \`title\``, where);
    return undefined;
  }
  if (text.kind === 'other') {
    errors.add(
      'invalid_value',
      `the \`title\` of ${label} must be a string, not ${text.description}`,
      where,
    );
    return undefined;
  }
  const title = text.text;
  if (title.trim() === '') {
    errors.add('invalid_value', `the \`title\` of ${label} is blank`, where);
  } else if (LINE_BREAK.test(title)) {
    errors.add('invalid_value', `the \`title\` of ${label} must be a single line`, where);
  } else if (countCodePoints(title) > MAX_TITLE_CHARS) {
    errors.add(
      'invalid_value',
      `the \`title\` of ${label} has ${countCodePoints(title)} characters; the limit is ${MAX_TITLE_CHARS}`,
      where,
    );
  } else {
    return title;
  }
  return undefined;
}

function readType(
  value: unknown,
  label: string,
  where: WhereArg,
  errors: ErrorList,
): string | undefined {
  const text = readText(value);
  if (text.kind === 'null') return undefined;
  // A type has the same shape as an id.
  if (text.kind === 'text' && ID_PATTERN.test(text.text)) return text.text;
  const shown = text.kind === 'text' ? code(text.text) : text.description;
  errors.add(
    'invalid_value',
    `the \`type\` of ${label} is ${shown}; a type is 1 to 40 lowercase letters, digits, \`_\` or \`-\`, starting with a letter or digit`,
    where,
  );
  return undefined;
}

function readDeps(
  value: unknown,
  label: string,
  base: string,
  task: RawTask,
  errors: ErrorList,
): string[] | undefined {
  const taskId = task.id !== undefined ? { taskId: task.id } : {};
  const text = readText(value);
  if (text.kind === 'null') return [];
  if (!isSeq(value)) {
    const example = text.kind === 'text' && ID_PATTERN.test(text.text) ? text.text : 'task_001';
    errors.add(
      'invalid_value',
      `the \`deps\` of ${label} must be a list of task ids (e.g. \`deps: [${example}]\`), not ${describe(value)}`,
      { path: base, node: value, ...taskId },
    );
    return undefined;
  }
  const deps: string[] = [];
  const seen = new Set<string>();
  let ok = true;
  value.items.forEach((item, j) => {
    const where = { path: `${base}[${j}]`, node: item, ...taskId };
    const dep = readText(item);
    if (isAlias(item)) {
      errors.add(
        'invalid_value',
        `dependency ${j + 1} of ${label} is a YAML alias; aliases are not supported in a plan`,
        where,
      );
      ok = false;
    } else if (dep.kind !== 'text' || dep.text === '') {
      const what = dep.kind === 'other' ? dep.description : 'empty';
      errors.add(
        'invalid_value',
        `dependency ${j + 1} of ${label} must be a task id, not ${what}`,
        where,
      );
      ok = false;
    } else if (seen.has(dep.text)) {
      errors.add('invalid_value', `${label} lists the dependency ${code(dep.text)} twice`, where);
      ok = false;
    } else {
      seen.add(dep.text);
      deps.push(dep.text);
      task.deps.push({ id: dep.text, path: where.path, node: item });
    }
  });
  return ok ? deps : undefined;
}

/** `files:`: a list of globs (src/core/glob.ts); empty or null declares nothing. */
function readFiles(
  value: unknown,
  label: string,
  base: string,
  taskId: string | undefined,
  errors: ErrorList,
): string[] | undefined {
  const id = taskId !== undefined ? { taskId } : {};
  const text = readText(value);
  if (text.kind === 'null') return undefined;
  if (!isSeq(value)) {
    errors.add(
      'invalid_value',
      `the \`files\` of ${label} must be a list of paths or globs (e.g. \`files: [src/login/**]\`), not ${describe(value)}`,
      { path: base, node: value, ...id },
    );
    return undefined;
  }
  if (value.items.length > MAX_GLOBS) {
    errors.add(
      'invalid_value',
      `the \`files\` of ${label} has ${value.items.length} entries; the limit is ${MAX_GLOBS}`,
      { path: base, node: value, ...id },
    );
    return undefined;
  }
  const files: string[] = [];
  let ok = true;
  value.items.forEach((item, j) => {
    const where = { path: `${base}[${j}]`, node: item, ...id };
    const entry = readText(item);
    if (isAlias(item) || entry.kind !== 'text') {
      const what = isAlias(item)
        ? 'a YAML alias'
        : entry.kind === 'other'
          ? entry.description
          : 'empty';
      errors.add(
        'invalid_value',
        `entry ${j + 1} of the \`files\` of ${label} must be a path or glob, not ${what}`,
        where,
      );
      ok = false;
      return;
    }
    const problem = globProblem(entry.text);
    if (problem) {
      errors.add(
        'invalid_value',
        `${code(entry.text)} in the \`files\` of ${label} ${problem}`,
        where,
      );
      ok = false;
    } else if (!files.includes(entry.text)) files.push(entry.text);
  });
  return ok ? files : undefined;
}

function readPrompt(
  value: unknown,
  label: string,
  where: WhereArg,
  errors: ErrorList,
): string | undefined {
  const text = readText(value);
  if (text.kind === 'null') return undefined;
  if (text.kind === 'other') {
    errors.add(
      'invalid_value',
      `the \`prompt\` of ${label} must be a string, not ${text.description}`,
      where,
    );
    return undefined;
  }
  if (text.text.trim() === '') {
    errors.add(
      'invalid_value',
      `the \`prompt\` of ${label} is blank; leave it out to use the default (the title and the issue body)`,
      where,
    );
    return undefined;
  }
  const length = countCodePoints(text.text);
  if (length > MAX_PROMPT_CHARS) {
    errors.add(
      'invalid_value',
      `the \`prompt\` of ${label} has ${length} characters; the limit is ${MAX_PROMPT_CHARS}`,
      where,
    );
    return undefined;
  }
  return text.text;
}

function readInt(
  value: unknown,
  key: string,
  min: number,
  max: number,
  label: string,
  where: WhereArg,
  errors: ErrorList,
): number | undefined {
  const text = readText(value);
  if (text.kind === 'null') return undefined;
  const n = (value as { value?: unknown }).value;
  if (typeof n === 'number' && Number.isInteger(n) && n >= min && n <= max) return n;
  errors.add(
    'invalid_value',
    `the \`${key}\` of ${label} must be a whole number from ${min} to ${max}, not ${describe(value)}`,
    where,
  );
  return undefined;
}
