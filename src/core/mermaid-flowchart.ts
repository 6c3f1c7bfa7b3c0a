/**
 * What a flowchart holds but does not draw (docs/security.md, "Text nobody saw"), read token by
 * token in the order Mermaid's lexer tries its rules (mermaid's
 * diagrams/flowchart/parser/flow.jison). A node given a label (`A["Fix typo"]`, any shape, or
 * `A@{ label: … }`) is drawn as its label wherever its id stands, so the id is cut at every
 * place; so are an edge's id (`A e1@--> B`) and a subgraph's id before its title
 * (`subgraph id [Title]`), and what a shape hides (mermaid-shapes.ts). Labels, edge texts, titles and the ids of nodes without a label are drawn and
 * stay. A node given two different labels shows only one, and a diagram that does not read as
 * a flowchart here (a label left open) may hide what this reading cannot place: both are left
 * out whole, as is one that restyles (mermaid-whole.ts), which the reader meets as a keyword.
 */

import {
  matchAt,
  readLabel,
  readShapeData,
  SHAPES,
  stringEnd,
  type Piece,
} from './mermaid-shapes.js';
import type { Cut } from './text-cuts.js';

/** Keywords that restyle, or link and show a tooltip: the diagram is left out whole. */
const RESTYLING = /(?:style|linkStyle|interpolate|classDef|class)\b|(?:href|click|call)\s|:::/y;
const SUBGRAPH = /subgraph\b/y;
const SPACES = /\s+/y;
const HEADER = /(?:flowchart-elk|graph|flowchart)\b[^;\n]*/y;
const OTHER_KEYWORD = /end\b\s*|_(?:self|blank|parent|top)\b/y;
const ID_PIECE =
  /[0-9]+|[#:&,*]|v\b|(?:[A-Za-z0-9!"#$%&'*+.`?\\_/]|-(?=[^>\-.])|=(?!=))+|-|\p{L}/uy;
/** Links, each with where the link an edge's text opens ends. */
const LINKS: ReadonlyArray<readonly [link: RegExp, opening: RegExp, closing: RegExp]> = [
  [/\s*[xo<]?--+[-xo>]\s*/y, /\s*[xo<]?--\s*/y, /\s*[xo<]?--+[-xo>]\s*/g],
  [/\s*[xo<]?==+[=xo>]\s*/y, /\s*[xo<]?==\s*/y, /\s*[xo<]?==+[=xo>]\s*/g],
  [/\s*[xo<]?-?\.+-[xo>]?\s*/y, /\s*[xo<]?-\.\s*/y, /\s*[xo<]?-?\.+-[xo>]?\s*/g],
];
const INVISIBLE_LINK = /\s*~~~+\s*/y;

/**
 * The spans of the flowchart's text (its comments and other undrawn lines blanked, offsets kept)
 * that are not drawn, or undefined when the diagram is to be left out whole.
 */
export function flowchartCuts(read: string): Cut[] | undefined {
  const pieces: Piece[] = [];
  const linkIds = linkIdEnds(read);
  for (let at = 0; at < read.length;) {
    const next = readPiece(read, at, pieces, linkIds);
    if (next === undefined) return undefined;
    at = next;
  }
  return cutsOf(read, pieces);
}

/** Reads the piece at `at` into `pieces`, and returns where the next starts. */
function readPiece(
  read: string,
  at: number,
  pieces: Piece[],
  linkIds: Int32Array,
): number | undefined {
  const push = (kind: 'id' | 'hidden' | 'gap', end: number) => {
    pieces.push({ kind, start: at, end });
    return end;
  };
  if (read.startsWith('@{', at)) return readShapeData(read, at, pieces);
  if (read[at] === '"') {
    const end = stringEnd(read, at);
    return end === undefined ? undefined : push('gap', end);
  }
  if (matchAt(RESTYLING, read, at)) return undefined;
  if (matchAt(SUBGRAPH, read, at)) return readSubgraph(read, at, pieces);
  for (const keyword of [HEADER, OTHER_KEYWORD]) {
    const found = matchAt(keyword, read, at);
    if (found) return push('gap', at + found[0].length);
  }
  if (linkIds[at]! >= 0) return push('hidden', linkIds[at]!);
  if (/[0-9#:&,*]/.test(read[at]!)) return push('id', at + matchAt(ID_PIECE, read, at)![0].length);
  for (const [link, opening, closing] of LINKS) {
    const found = matchAt(link, read, at);
    if (found) return push('gap', at + found[0].length);
    const opened = matchAt(opening, read, at);
    if (!opened) continue;
    closing.lastIndex = at + opened[0].length;
    const closed = closing.exec(read);
    return closed ? push('gap', closed.index + closed[0].length) : undefined;
  }
  const invisible = matchAt(INVISIBLE_LINK, read, at);
  if (invisible) return push('gap', at + invisible[0].length);
  // No link starts inside a run of spaces if none starts at its first: it is one gap.
  const spaces = matchAt(SPACES, read, at);
  if (spaces) return push('gap', at + spaces[0].length);
  const shape = SHAPES.find(([opening]) => read.startsWith(opening, at));
  if (shape) return readLabel(read, at, shape[0], shape[1], pieces);
  const id = matchAt(ID_PIECE, read, at);
  if (id) return push('id', at + id[0].length);
  return push('gap', at + 1);
}

/** `subgraph id [Title]` hides its id; `subgraph Title` draws its title, which is its id. */
function readSubgraph(read: string, at: number, pieces: Piece[]): number {
  const after = at + 'subgraph'.length;
  const ends = ['\n', ';'].map((end) => read.indexOf(end, after)).filter((end) => end >= 0);
  const lineEnd = Math.min(read.length, ...ends);
  let title = after;
  while (title < lineEnd && read[title] !== '[')
    title = read[title] === '"' ? (stringEnd(read, title) ?? lineEnd) : title + 1;
  if (title >= lineEnd) {
    pieces.push({ kind: 'gap', start: at, end: lineEnd });
    return lineEnd;
  }
  pieces.push({ kind: 'gap', start: at, end: after });
  pieces.push({ kind: 'hidden', start: after, end: title, id: read.slice(after, title).trim() });
  return title;
}

/**
 * Where the edge id Mermaid's lexer would read at each position ends (its `LINK_ID`,
 * `[^\s"]+@(?=[^{"])`: to the last such `@` of the run of text), or -1: one pass from the end,
 * where trying the pattern at each position would take quadratic time on a long run.
 */
function linkIdEnds(read: string): Int32Array {
  const ends = new Int32Array(read.length).fill(-1);
  let end = -1;
  for (let at = read.length - 1; at >= 0; at--) {
    const char = read[at]!;
    if (char === '"' || /\s/.test(char)) {
      end = -1;
      continue;
    }
    ends[at] = end;
    if (char === '@' && end < 0 && at + 1 < read.length && !/[{"]/.test(read[at + 1]!))
      end = at + 1;
  }
  return ends;
}

/**
 * The cuts: each piece that is never drawn, and each id of a node given a label or `@{…}`,
 * wherever it stands (adjacent id pieces make one id, as Mermaid's `idString` does).
 */
function cutsOf(read: string, pieces: readonly Piece[]): Cut[] | undefined {
  const ids: Cut[] = [];
  const hiddenIds = new Set<string>();
  const labels = new Map<string, string>();
  const cuts: Cut[] = [];
  // The node the last piece ended: its id, and where its id or shape ends.
  let vertex: { id: string; end: number } | undefined;
  for (const piece of pieces) {
    if (piece.kind === 'id') {
      const last = ids.at(-1);
      if (last?.end === piece.start) last.end = piece.end;
      else ids.push({ start: piece.start, end: piece.end });
      vertex = { id: read.slice(ids.at(-1)!.start, piece.end), end: piece.end };
      continue;
    }
    if (piece.kind === 'hidden') {
      cuts.push({ start: piece.start, end: piece.end });
      if (piece.id) hiddenIds.add(piece.id);
    }
    if (piece.kind === 'data') cuts.push(...aroundLabel(piece.start, piece.end, piece.label));
    const labelled = piece.kind === 'label' || piece.kind === 'data';
    if (!labelled || vertex?.end !== piece.start) continue;
    hiddenIds.add(vertex.id);
    vertex.end = piece.end;
    const text = piece.kind === 'label' ? piece.text : piece.label;
    if (text === undefined) continue;
    const written = read.slice(text.start, text.end);
    if ((labels.get(vertex.id) ?? written) !== written) return undefined;
    labels.set(vertex.id, written);
  }
  for (const id of ids) if (hiddenIds.has(read.slice(id.start, id.end))) cuts.push(id);
  return cuts;
}

function aroundLabel(start: number, end: number, label: Cut | undefined): Cut[] {
  if (!label) return [{ start, end }];
  return [
    { start, end: label.start },
    { start: label.end, end },
  ];
}
