import { answerBody, answerMarker } from '../core/commands/index.js';
import type { GitHubPort, RepoCoords } from '../github/port.js';

/**
 * Post the App's answer to what the command log holds under `key` (a comment's id, or an event's
 * stand-in), once (docs/commands.md, "Each comment once"). A handling that found the entry
 * recorded by an earlier handling of its delivery (`handledBefore`) may have posted the answer
 * before it was cut short: only then is the answer looked for first, by its marker.
 */
export async function postAnswer(
  port: GitHubPort,
  repo: RepoCoords,
  issueNumber: number,
  answer: { key: number; text: string; handledBefore: boolean },
): Promise<void> {
  if (
    answer.handledBefore &&
    (await port.findAppComment(repo, issueNumber, answerMarker(answer.key)))
  )
    return;
  await port.createIssueComment(repo, issueNumber, answerBody(answer.text, answer.key));
}
