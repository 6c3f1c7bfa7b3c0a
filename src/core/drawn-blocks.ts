/**
 * The fenced blocks GitHub draws rather than shows, Mermaid diagrams and math, as the readers of
 * what they hide see them (docs/security.md, "Text nobody saw"): a block opens on any line whose
 * text after what may be a container (markdown-prefix.ts) opens a fence with its language, and
 * runs to the first line that would close it at the top level. In a quote or a list item GitHub
 * ends it there or sooner (where the container ends), so a block here holds at least the lines
 * GitHub draws in it.
 */

import { fenceLanguage } from './code-blocks.js';
import { afterPrefix } from './markdown-prefix.js';
import { closesFence, openingFence, unindented } from './markdown-fences.js';

/** A drawn block: the line of its opening fence, and of its closing one (or the line count). */
export type DrawnBlock = { open: number; close: number };

/** Bounds the work per block on hostile text: a block read no further runs to the end. */
const MAX_CLOSING_LINES_TRIED = 64;

/** The blocks of `language` (lower-case) among the lines. */
export function drawnBlocks(lines: readonly string[], language: string): DrawnBlock[] {
  const blocks: DrawnBlock[] = [];
  if (!lines.some((line) => line.includes('```') || line.includes('~~~'))) return blocks;
  // The lines that may close a fence, each tried only against the fences it may close.
  const bare = lines.flatMap((line, i) => (/^[ \t]*(?:`{3,}|~{3,})[ \t]*$/.test(line) ? [i] : []));
  lines.forEach((line, open) => {
    const rest = unindented(afterPrefix(line));
    const fence = openingFence(rest);
    if (!fence || fenceLanguage(rest.slice(fence.length)) !== language) return;
    const first = firstAfter(bare, open);
    const after = bare.slice(first, first + MAX_CLOSING_LINES_TRIED);
    const close = after.find((i) => closesFence(lines[i]!, fence)) ?? lines.length;
    // A block inside the last one holds nothing that one does not.
    const last = blocks.at(-1);
    if (last === undefined || close > last.close) blocks.push({ open, close });
  });
  return blocks;
}

/** The index of the first of the sorted `values` above `value`. */
function firstAfter(values: readonly number[], value: number): number {
  let low = 0;
  let high = values.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (values[middle]! > value) high = middle;
    else low = middle + 1;
  }
  return low;
}
