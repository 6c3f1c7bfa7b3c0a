/**
 * The hidden marker closing the App's answer to a command, a refused label or a refused close:
 * it names the command log's key (the comment's id, or an event's stand-in). A delivery handled
 * again after its answer was posted, before the answer was recorded, finds it and does not post
 * it again (docs/commands.md, "Each comment once"). It closes the reply, so the reply still opens
 * with its mention.
 */
export function answerMarker(key: number): string {
  return `<!-- agent-coordinator:answer comment=${key} -->`;
}

/** `text` as the App posts it in answer to the command logged under `key`. */
export function answerBody(text: string, key: number): string {
  return `${text}\n\n${answerMarker(key)}`;
}
