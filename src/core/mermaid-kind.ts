/**
 * The kind of a Mermaid diagram, which decides how its text is read for what it does not draw
 * (docs/security.md, "Text nobody saw"; mermaid-text.ts). Matched in any case: a kind taken for
 * one Mermaid would not read is cut more, not less.
 */

/** The kinds of diagram whose own forms are checked, by the keyword that opens them. */
export type DiagramKind =
  | 'flowchart'
  | 'sequence'
  | 'class'
  | 'state'
  | 'mindmap'
  | 'kanban'
  | 'c4'
  | 'hash-comments'
  | 'other';

/** Mermaid's detectors, in the order it tries them (mermaid's diagram-api/detectType.ts). */
const KINDS: ReadonlyArray<readonly [RegExp, DiagramKind]> = [
  [/^\s*C4\w*/i, 'c4'],
  [/^\s*(?:graph|flowchart)/i, 'flowchart'],
  [/^\s*sequenceDiagram/i, 'sequence'],
  [/^\s*classDiagram/i, 'class'],
  [/^\s*stateDiagram/i, 'state'],
  [/^\s*mindmap/i, 'mindmap'],
  [/^\s*kanban/i, 'kanban'],
  [/^\s*(?:requirement|timeline|journey)/i, 'hash-comments'],
];

/** The kind of the diagram, read without its comments (Mermaid detects it so). */
export function diagramKind(read: string): DiagramKind {
  return KINDS.find(([opening]) => opening.test(read))?.[1] ?? 'other';
}
