/**
 * Every Postgres advisory lock key the coordinator takes, in one place. Keys are 64-bit; a lock
 * per object lives in a namespace of its own (a high bit plus the object's id, which GitHub and
 * our sequences keep far below 2^57), so a repository id can never collide with a run id, and the
 * few fixed keys sit below every namespace.
 */
const NAMESPACES = {
  installationWrites: 1n << 57n,
  repositoryMerges: 1n << 58n,
  runStatus: 1n << 59n,
  repositoryDispatch: 1n << 60n,
  installationRefusals: 1n << 62n,
} as const;

/** The widest id a namespace holds: ids at or above it would reach the next namespace. */
export const MAX_LOCKED_ID = (1n << 57n) - 1n;

function inNamespace(base: bigint, id: number): bigint {
  const value = BigInt(id);
  if (value < 0n || value > MAX_LOCKED_ID) throw new RangeError(`lock id ${id} is out of range`);
  return base + value;
}

export const LOCK_KEYS = {
  /** The migrator (drizzle's takes no lock of its own); spells "agentco". */
  migrations: 0x6167656e74636fn,
  /** One sweep at a time across processes; spells "sweeplo". */
  sweep: 0x73776565706c6fn,
  /** Inbox claims take turns; spells "inbox". */
  inboxClaims: 0x696e626f78n,
  /** The global dispatch limit is counted under this one key, after the repository's. */
  globalDispatch: (1n << 61n) + 1n,
  /** Dispatch claims of one repository. */
  repositoryDispatch: (repositoryId: number) =>
    inNamespace(NAMESPACES.repositoryDispatch, repositoryId),
  /** Merge decisions of one repository take turns across processes (its base branches' pools). */
  repositoryMerges: (repositoryId: number) =>
    inNamespace(NAMESPACES.repositoryMerges, repositoryId),
  /** One writer of a run's status comment. */
  runStatus: (runId: number) => inNamespace(NAMESPACES.runStatus, runId),
  /** Write-budget reservations of one installation. */
  installationWrites: (installationId: number) =>
    inNamespace(NAMESPACES.installationWrites, installationId),
  /** Refusal replies of one installation: counted and recorded one at a time. */
  installationRefusals: (installationId: number) =>
    inNamespace(NAMESPACES.installationRefusals, installationId),
} as const;
