/**
 * An answer of the App without the marker it closes with (src/core/commands/answer-marker.ts):
 * the text a person reads. Only that trailing marker is taken off; one anywhere else stays.
 */
export function answerText(body: string): string {
  return body.replace(/\n\n<!-- agent-coordinator:answer comment=-?\d+ -->$/, '');
}
