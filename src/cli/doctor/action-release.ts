import { why, type DoctorClient } from './client.js';
import { ok, problem, unknown, type Finding } from './report.js';
import type { ActionPin } from './workflow.js';

const COMMIT = /^[0-9a-f]{40}$/;
const RELEASE_TAG = /^v\d+(?:\.\d+\.\d+)?$/;

/**
 * Whether the release a workflow pins exists in the worker action's repository: a tag GitHub
 * does not have fails every run of the workflow at "Set up job", before any of its steps
 * (the template's `v0` did, until release.yml created it). A tag (`@v0`, `@v1.2.3`) is looked
 * up as it is; a commit with its `# vX.Y.Z` comment, as init writes it, by that version's tag,
 * which must still point at the commit. Any other ref is not a release and not checked.
 */
export async function checkActionRelease(
  gh: DoctorClient,
  pin: ActionPin,
  actionName: string,
): Promise<Finding | undefined> {
  const [owner, repo] = actionName.split('/') as [string, string];
  const pinnedCommit = COMMIT.test(pin.ref) ? pin.ref : undefined;
  const tag = pinnedCommit ? (pin.version ? `v${pin.version}` : undefined) : pin.ref;
  if (!tag || !RELEASE_TAG.test(tag)) return undefined;

  const subject = `worker action release ${tag}`;
  const release = `the Release workflow of ${owner}/${repo} (README: Releasing)`;
  const commit = await gh.tagCommit(owner, repo, tag);
  if (!commit.ok) {
    if (commit.status === 404)
      return problem(
        subject,
        `${owner}/${repo} has no tag ${tag}: GitHub cannot start the worker action, so every run fails at "Set up job"`,
        `release it with ${release}, or pin a release that exists`,
      );
    return unknown(subject, `could not look up the tag in ${owner}/${repo} (${why(commit)})`);
  }
  if (pinnedCommit && commit.data !== pinnedCommit)
    return problem(
      subject,
      `the workflow pins ${pinnedCommit} as ${tag}, but ${owner}/${repo}'s ${tag} is ${commit.data}`,
      `check which commit is the release; \`npx agent-coordinator init --force\` pins the tag's commit`,
    );
  return ok(subject, `${owner}/${repo} has the tag ${tag} (${commit.data})`);
}
