import { AttemptStore } from './attempts.js';
import { CommandStore } from './commands.js';
import type { DatabaseHandle } from './database.js';
import { DeliveryStore } from './deliveries.js';
import { MergeTurns } from './merge-turns.js';
import { PullStore } from './pulls.js';
import { RepositoryStore } from './repositories.js';
import { RunStore } from './runs.js';
import { TaskPathStore } from './task-paths.js';

export interface Store {
  readonly handle: DatabaseHandle;
  readonly deliveries: DeliveryStore;
  readonly repositories: RepositoryStore;
  readonly runs: RunStore;
  readonly attempts: AttemptStore;
  readonly pulls: PullStore;
  readonly commands: CommandStore;
  readonly mergeTurns: MergeTurns;
  readonly taskPaths: TaskPathStore;
}

export function createStore(handle: DatabaseHandle): Store {
  return {
    handle,
    deliveries: new DeliveryStore(
      handle.db,
      (text, params, name) => handle.inboxQuery(text, params, name),
      (lock, unlock) => handle.holdSession(lock, unlock),
    ),
    repositories: new RepositoryStore(handle.db),
    runs: new RunStore(handle.db),
    attempts: new AttemptStore(handle.db),
    pulls: new PullStore(handle.db),
    commands: new CommandStore(handle.db),
    mergeTurns: new MergeTurns(handle),
    taskPaths: new TaskPathStore(handle.db),
  };
}
