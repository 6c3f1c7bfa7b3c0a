import type { GitHubPort, RepoCoords } from '../github/port.js';
import type { TaskRow } from '../store/runs.js';
import { crashPoint } from '../crash-points.js';
import type { Engine } from './context.js';
import { scheduleRepository } from './dispatch.js';

/**
 * A task's PR opened or moved: the files it changes (`GET /pulls/{n}/files`, every page) replace
 * its `files:` in every overlap decision still to come (docs/lifecycle.md, "Overlapping files").
 * Only for a task that declares files: one without never takes part in overlaps. Recorded when
 * they differ; then the status comment is due (it names files outside the declaration) and the
 * repository is scheduled again (narrower real files may free a task that waited).
 */
export async function recordChangedFiles(
  engine: Engine,
  port: GitHubPort,
  repo: RepoCoords,
  repositoryId: number,
  task: TaskRow,
  pullNumber: number,
): Promise<void> {
  if (task.files === null) return;
  const files = await port.pullFiles(repo, pullNumber);
  // A crash here records nothing: the delivery is handled again and reads them again.
  crashPoint('changed-files.read');
  if (!(await engine.store.taskPaths.recordChangedFiles(task.id, files))) return;
  engine.requestStatus(task.runId);
  await scheduleRepository(engine, repositoryId);
}
