import type { Core } from '../core.js';
import { nodeId } from '../ids.js';
import type { Account, AppInfo, Issue, IssueComment, Label, Reaction, Repo } from '../model.js';
import { commentJson, issueJson, labelJson } from '../render/issues.js';
import { sendPullEvent, type Sent } from './pull-events.js';

const LABEL_COLORS = ['ededed', '0e8a16', 'd93f0b', '1d76db', 'fbca04', '5319e7'];

// Issues and PRs share numbers and most events; a PR's issue events come as pull_request.
function sendIssueEvent(
  core: Core,
  repo: Repo,
  issue: Issue,
  action: string,
  sender: Account,
  extra: Record<string, unknown> = {},
): Promise<unknown> {
  const pull = issue.isPull ? repo.pulls.get(issue.number) : undefined;
  if (pull) return sendPullEvent(core, repo, pull, action, sender, extra);
  return core.webhooks.sendWebhook({
    event: 'issues',
    action,
    repo,
    sender,
    body: { ...extra, issue: issueJson(core, repo, issue) },
  });
}

export function newIssue(
  core: Core,
  repo: Repo,
  input: { title: string; body: string | null; user: Account; isPull: boolean },
): Issue {
  const number = repo.nextNumber++;
  const id = core.ids.next(input.isPull ? 'pull' : 'issue');
  const now = core.now();
  const issue: Issue = {
    number,
    id,
    nodeId: nodeId('I', id),
    title: input.title,
    body: input.body,
    user: input.user,
    state: 'open',
    stateReason: null,
    labels: [],
    createdAt: now,
    updatedAt: now,
    closedAt: null,
    closedBy: null,
    isPull: input.isPull,
  };
  repo.issues.set(number, issue);
  return issue;
}

export function openIssue(
  core: Core,
  repo: Repo,
  input: { title: string; body?: string | null; user: Account; labels?: string[] },
): { issue: Issue; sent: Sent } {
  const issue = newIssue(core, repo, {
    title: input.title,
    body: input.body ?? null,
    user: input.user,
    isPull: false,
  });
  for (const name of input.labels ?? []) issue.labels.push(ensureLabel(core, repo, name));
  core.changed('issue', { repo: repo.fullName, number: issue.number });
  return { issue, sent: [sendIssueEvent(core, repo, issue, 'opened', input.user)] };
}

export function ensureLabel(core: Core, repo: Repo, name: string): Label {
  const key = name.toLowerCase();
  const known = repo.labels.get(key);
  if (known) return known;
  const id = core.ids.next('label');
  const label: Label = {
    id,
    nodeId: nodeId('LA', id),
    name,
    color: LABEL_COLORS[repo.labels.size % LABEL_COLORS.length] ?? 'ededed',
    description: null,
  };
  repo.labels.set(key, label);
  return label;
}

export function addLabels(
  core: Core,
  repo: Repo,
  issue: Issue,
  names: readonly string[],
  by: Account,
): Sent {
  const sent: Sent = [];
  for (const name of names) {
    if (issue.labels.some((l) => l.name.toLowerCase() === name.toLowerCase())) continue;
    const label = ensureLabel(core, repo, name);
    issue.labels.push(label);
    issue.updatedAt = core.now();
    core.changed('labels', { repo: repo.fullName, number: issue.number });
    sent.push(
      sendIssueEvent(core, repo, issue, 'labeled', by, { label: labelJson(core, repo, label) }),
    );
  }
  return sent;
}

export function removeLabel(
  core: Core,
  repo: Repo,
  issue: Issue,
  name: string,
  by: Account,
): Sent | null {
  const index = issue.labels.findIndex((l) => l.name.toLowerCase() === name.toLowerCase());
  const label = issue.labels[index];
  if (!label) return null;
  issue.labels.splice(index, 1);
  issue.updatedAt = core.now();
  core.changed('labels', { repo: repo.fullName, number: issue.number });
  return [
    sendIssueEvent(core, repo, issue, 'unlabeled', by, { label: labelJson(core, repo, label) }),
  ];
}

export function setLabels(
  core: Core,
  repo: Repo,
  issue: Issue,
  names: readonly string[],
  by: Account,
): Sent {
  const wanted = new Set(names.map((n) => n.toLowerCase()));
  const sent: Sent = [];
  for (const l of [...issue.labels]) {
    if (!wanted.has(l.name.toLowerCase()))
      sent.push(...(removeLabel(core, repo, issue, l.name, by) ?? []));
  }
  sent.push(...addLabels(core, repo, issue, names, by));
  return sent;
}

export interface IssueEdit {
  title?: string;
  body?: string | null;
  state?: 'open' | 'closed';
  stateReason?: 'completed' | 'not_planned' | 'reopened' | null;
}

export function editIssue(
  core: Core,
  repo: Repo,
  issue: Issue,
  edit: IssueEdit,
  by: Account,
): Sent {
  const sent: Sent = [];
  const changes: Record<string, { from: unknown }> = {};
  if (edit.title !== undefined && edit.title !== issue.title) {
    changes['title'] = { from: issue.title };
    issue.title = edit.title;
  }
  if (edit.body !== undefined && edit.body !== issue.body) {
    changes['body'] = { from: issue.body ?? '' };
    issue.body = edit.body;
  }
  const now = core.now();
  if (Object.keys(changes).length > 0) {
    issue.updatedAt = now;
    core.changed('issue', { repo: repo.fullName, number: issue.number });
    sent.push(sendIssueEvent(core, repo, issue, 'edited', by, { changes }));
  }
  if (edit.state && edit.state !== issue.state) {
    const pull = repo.pulls.get(issue.number);
    if (edit.state === 'open' && pull?.merged) return sent;
    issue.state = edit.state;
    issue.updatedAt = now;
    if (edit.state === 'closed') {
      issue.closedAt = now;
      issue.closedBy = by;
      issue.stateReason = issue.isPull ? null : (edit.stateReason ?? 'completed');
      if (pull) {
        const queue = repo.mergeQueues.get(pull.baseRef);
        if (queue) queue.entries = queue.entries.filter((e) => e.pull !== pull);
      }
    } else {
      issue.closedAt = null;
      issue.closedBy = null;
      issue.stateReason = issue.isPull ? null : 'reopened';
    }
    core.changed('issue', { repo: repo.fullName, number: issue.number });
    sent.push(
      sendIssueEvent(core, repo, issue, edit.state === 'closed' ? 'closed' : 'reopened', by),
    );
  }
  return sent;
}

function sendCommentEvent(
  core: Core,
  repo: Repo,
  comment: IssueComment,
  action: string,
  sender: Account,
  extra: Record<string, unknown> = {},
): Promise<unknown> {
  const issue = repo.issues.get(comment.issueNumber);
  return core.webhooks.sendWebhook({
    event: 'issue_comment',
    action,
    repo,
    sender,
    body: {
      ...extra,
      issue: issue ? issueJson(core, repo, issue) : null,
      comment: commentJson(core, repo, comment),
    },
  });
}

export function createComment(
  core: Core,
  repo: Repo,
  issue: Issue,
  body: string,
  by: Account,
  app: AppInfo | null,
): { comment: IssueComment; sent: Sent } {
  const id = core.ids.next('comment');
  const now = core.now();
  const comment: IssueComment = {
    id,
    nodeId: nodeId('IC', id),
    issueNumber: issue.number,
    body,
    user: by,
    createdAt: now,
    updatedAt: now,
    reactions: [],
    app,
  };
  repo.comments.set(id, comment);
  issue.updatedAt = now;
  core.changed('comment', { repo: repo.fullName, number: issue.number, id });
  return { comment, sent: [sendCommentEvent(core, repo, comment, 'created', by)] };
}

export function editComment(
  core: Core,
  repo: Repo,
  comment: IssueComment,
  body: string,
  by: Account,
): Sent {
  if (body === comment.body) return [];
  const from = comment.body;
  comment.body = body;
  comment.updatedAt = core.now();
  core.changed('comment', { repo: repo.fullName, number: comment.issueNumber, id: comment.id });
  return [sendCommentEvent(core, repo, comment, 'edited', by, { changes: { body: { from } } })];
}

export function deleteComment(core: Core, repo: Repo, comment: IssueComment, by: Account): Sent {
  repo.comments.delete(comment.id);
  core.changed('comment', { repo: repo.fullName, number: comment.issueNumber, id: comment.id });
  return [sendCommentEvent(core, repo, comment, 'deleted', by)];
}

export function addReaction(
  core: Core,
  comment: IssueComment,
  content: string,
  by: Account,
): { reaction: Reaction; created: boolean } {
  const existing = comment.reactions.find((r) => r.content === content && r.user === by);
  if (existing) return { reaction: existing, created: false };
  const id = core.ids.next('reaction');
  const reaction: Reaction = {
    id,
    nodeId: nodeId('REA', id),
    content,
    user: by,
    createdAt: core.now(),
  };
  comment.reactions.push(reaction);
  core.changed('reaction', { comment: comment.id });
  return { reaction, created: true };
}
