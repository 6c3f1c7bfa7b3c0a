import type { GitHubPort, RepoCoords } from '../github/port.js';
import type { TaskRow } from '../store/runs.js';
import { crashPoint } from '../crash-points.js';
import type { Engine } from './context.js';
import { scheduleRepository } from './dispatch.js';

/**
 * A task's PR opened or moved: the files it changes (`GET /pulls/{n}/files`, every page) replace
 * its `files:` in every overlap decision still to come (docs/lifecycle.md, "Overlapping files").
 * Only for a task that declares files: one without never takes part in overlaps. Recorded with
 * the PR's head they were read at (`pull.head`: a later head has them read again, core's
 * `changedFilesCurrent`); when the files differ, the status comment is due (it names files
 * outside the declaration) and the repository is scheduled again (narrower real files may free
 * a task that waited).
 */
export async function recordChangedFiles(
  engine: Engine,
  port: GitHubPort,
  repo: RepoCoords,
  repositoryId: number,
  task: TaskRow,
  /** The task's PR, and its head as the caller knows it (null when it knows none). */
  pull: { number: number; head: string | null },
): Promise<void> {
  if (task.files === null) return;
  const files = await port.pullFiles(repo, pull.number);
  // A crash here records nothing: the delivery is handled again and reads them again.
  crashPoint('changed-files.read');
  if (!(await engine.store.taskPaths.recordChangedFiles(task.id, files, pull.head))) return;
  engine.requestStatus(task.runId);
  await scheduleRepository(engine, repositoryId);
}
