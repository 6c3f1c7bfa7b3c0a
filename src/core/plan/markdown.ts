import { extractTasksBlock } from './extract.js';
import { parsePlanYamlAt } from './parse.js';
import type { PlanLimits, PlanResult } from './types.js';

/** Extract the tasks block and validate it; positions are lines and columns of `markdown`. */
export function parsePlanMarkdown(markdown: string, limits: PlanLimits): PlanResult {
  const block = extractTasksBlock(markdown);
  if (!block.ok) return { ok: false, errors: [block.error] };
  return parsePlanYamlAt(block.yaml, limits, block);
}
