export { escapeMarkdownCell, mermaidLabel, sanitizeMarkdownBlock, truncate } from './escape.js';
export { renderStatusComment } from './render.js';
export { statusViewOf } from './model.js';
export { STATUS_MARKER } from './types.js';
export type { StatusTaskView, StatusView } from './types.js';
export { renderFailureComment } from './failure-comment.js';
