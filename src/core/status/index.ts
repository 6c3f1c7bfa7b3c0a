export { escapeMarkdownCell, mermaidLabel, sanitizeMarkdownBlock, truncate } from './escape.js';
export { MAX_GRAPH_EDGES, MAX_GRAPH_TASKS, renderMermaidGraph } from './mermaid.js';
export { DEFAULT_MAX_CHARS, renderStatusComment } from './render.js';
export { STATUS_MARKER } from './types.js';
export type { RenderOptions, StatusTaskView, StatusView } from './types.js';
export { renderFailureComment } from './failure-comment.js';
export type { FailureCommentInput } from './failure-comment.js';
