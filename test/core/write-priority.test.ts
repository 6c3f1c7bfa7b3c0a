import { describe, expect, it } from 'vitest';
import {
  grantedBefore,
  isCriticalWrite,
  windowLimitFor,
  writePriorityOf,
  type GitHubWrite,
  type WaitingWrite,
  type WritePriority,
} from '../../src/core/write-priority.js';

describe('which write goes first when the write budget is short', () => {
  it.each<[GitHubWrite, WritePriority]>([
    // A run's critical path: merge → next dispatch, and what a merge waits for.
    ['create_branch', 'advance'],
    ['dispatch_workflow', 'advance'],
    ['merge', 'advance'],
    ['enqueue', 'advance'],
    ['dequeue', 'advance'],
    ['order_check', 'advance'],
    ['update_branch', 'advance'],
    ['change_pull_base', 'advance'],
    ['cancel_workflow_run', 'advance'],
    ['rerun_failed_jobs', 'advance'],
    // Answering people and preparing work.
    ['issue_comment', 'prepare'],
    ['add_labels', 'prepare'],
    ['close_issue', 'prepare'],
    ['request_reviewers', 'prepare'],
    // Cosmetic: a later write brings them up to date.
    ['status_comment_edit', 'report'],
    ['reaction', 'report'],
  ])('%s is %s', (write, priority) => {
    expect(writePriorityOf(write)).toBe(priority);
  });

  const w = (write: GitHubWrite, seq: number): WaitingWrite => ({
    priority: writePriorityOf(write),
    seq,
  });

  it.each<[string, WaitingWrite, WaitingWrite, boolean]>([
    [
      'a dispatch before an earlier status edit',
      w('dispatch_workflow', 5),
      w('status_comment_edit', 1),
      true,
    ],
    [
      'a status edit after a later dispatch',
      w('status_comment_edit', 1),
      w('dispatch_workflow', 5),
      false,
    ],
    ['a branch before an earlier reply', w('create_branch', 9), w('issue_comment', 2), true],
    ['an order check before an earlier reaction', w('order_check', 3), w('reaction', 0), true],
    [
      'a reply before an earlier status edit',
      w('issue_comment', 4),
      w('status_comment_edit', 0),
      true,
    ],
    ['two critical writes in arrival order', w('merge', 1), w('dispatch_workflow', 2), true],
    ['…and not the other way', w('dispatch_workflow', 2), w('merge', 1), false],
    [
      'two status edits in arrival order',
      w('status_comment_edit', 7),
      w('status_comment_edit', 8),
      true,
    ],
  ])('%s', (_, a, b, first) => {
    expect(grantedBefore(a, b)).toBe(first);
  });

  it.each<[WritePriority, number, number]>([
    ['advance', 80, 80],
    ['prepare', 80, 64],
    ['report', 80, 64],
    ['report', 5, 4],
    ['advance', 1, 1],
    // A window of one still lets every write through, in turn.
    ['report', 1, 1],
  ])(
    'a %s write may join a window of %i while it holds fewer than %i',
    (priority, window, limit) => {
      expect(windowLimitFor(priority, window)).toBe(limit);
    },
  );

  it.each<[WritePriority, boolean]>([
    ['advance', true],
    ['prepare', false],
    ['report', false],
  ])('a %s write is on the critical path: %s', (priority, critical) => {
    expect(isCriticalWrite(priority)).toBe(critical);
  });
});
