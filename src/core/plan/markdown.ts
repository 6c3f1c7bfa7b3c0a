import { visibleMarkdown } from '../visible-text.js';
import { extractTasksBlock } from './extract.js';
import { parsePlanYamlAt } from './parse.js';
import type { PlanLimits, PlanResult } from './types.js';

/** Extract the tasks block and validate it; positions are lines and columns of `markdown`. */
export function parsePlanMarkdown(markdown: string, limits: PlanLimits): PlanResult {
  const block = extractTasksBlock(markdown);
  if (!block.ok) return { ok: false, errors: [block.error] };
  if (limits.issue && !shownAsWritten(markdown, block.yaml))
    return {
      ok: false,
      errors: [
        {
          code: 'hidden_tasks_block',
          message:
            "the issue's tasks block is not shown on GitHub as written (part of the issue hides it, or hides text in it), so it is not taken as the plan: show it plainly, or give the plan with `/plan`",
          line: block.lineOffset,
        },
      ],
    };
  return parsePlanYamlAt(block.yaml, limits, block);
}

/**
 * Whether the issue as GitHub shows it holds the same tasks block: a block after a tag left open,
 * in an element GitHub drops or in raw HTML would otherwise run tasks nobody saw
 * (docs/security.md, "Text nobody saw").
 */
function shownAsWritten(markdown: string, yaml: string): boolean {
  const shown = extractTasksBlock(visibleMarkdown(markdown));
  return shown.ok && shown.yaml === yaml;
}
