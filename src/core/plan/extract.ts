import type { PlanError } from './types.js';

export type ExtractResult =
  | {
      ok: true;
      yaml: string;
      /** Markdown line number = YAML line number + lineOffset. */
      lineOffset: number;
      /** Indentation of the opening fence, stripped from the content lines (CommonMark). */
      columnOffset: number;
    }
  | { ok: false; error: PlanError };

// CommonMark fences: up to 3 spaces of indentation, 3+ backticks or tildes. A backtick
// fence's info string may not contain a backtick (then the line is inline code, not a fence).
const FENCE_OPEN = /^( {0,3})(`{3,}|~{3,})(.*)$/;
const FENCE_CLOSE = /^ {0,3}(`{3,}|~{3,})[ \t]*$/;
const BLOCKQUOTE = /^ {0,3}>/;
const HTML_COMMENT_OPEN = /^ {0,3}<!--/;

interface OpenFence {
  char: string;
  length: number;
  indent: number;
  isTasks: boolean;
  line: number;
}

/**
 * Find the one fenced code block whose info string is exactly `tasks`. Blocks of other
 * languages are skipped whole (a tasks fence inside them is content), as are blockquotes
 * and HTML comments, so only a block GitHub renders as a top-level code block counts.
 * An unclosed tasks fence runs to the end of the text, as CommonMark renders it.
 */
export function extractTasksBlock(markdown: string): ExtractResult {
  const lines = markdown.split(/\r\n|\r|\n/);
  let fence: OpenFence | undefined;
  let inHtmlComment = false;
  let found: { start: number; end: number; indent: number } | undefined;

  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (fence) {
      const close = FENCE_CLOSE.exec(line);
      if (close && close[1]![0] === fence.char && close[1]!.length >= fence.length) {
        if (fence.isTasks && found) found.end = i;
        fence = undefined;
      }
      continue;
    }
    if (inHtmlComment) {
      if (line.includes('-->')) inHtmlComment = false;
      continue;
    }
    if (HTML_COMMENT_OPEN.test(line)) {
      inHtmlComment = !line.slice(line.indexOf('<!--') + 4).includes('-->');
      continue;
    }
    if (BLOCKQUOTE.test(line)) continue;
    const open = FENCE_OPEN.exec(line);
    if (!open) continue;
    const marker = open[2]!;
    const info = open[3]!;
    if (marker[0] === '`' && info.includes('`')) continue;
    const isTasks = info.trim() === 'tasks';
    fence = { char: marker[0]!, length: marker.length, indent: open[1]!.length, isTasks, line: i };
    if (!isTasks) continue;
    if (found) {
      return {
        ok: false,
        error: {
          code: 'multiple_tasks_blocks',
          message: `found a second \`tasks\` code block (the first starts on line ${found.start}); put the whole plan in one block`,
          line: i + 1,
          column: fence.indent + 1,
        },
      };
    }
    found = { start: i + 1, end: lines.length, indent: fence.indent };
  }

  if (!found) {
    return {
      ok: false,
      error: {
        code: 'no_tasks_block',
        message:
          'no `tasks` code block found; write the plan as a fenced code block whose info string is `tasks`',
      },
    };
  }
  const indent = found.indent;
  const content = lines.slice(found.start, found.end).map((l) => stripIndent(l, indent));
  return { ok: true, yaml: content.join('\n'), lineOffset: found.start, columnOffset: indent };
}

// CommonMark removes the opening fence's indentation (or as much of it as is present).
function stripIndent(line: string, indent: number): string {
  let i = 0;
  while (i < indent && line[i] === ' ') i++;
  return line.slice(i);
}
