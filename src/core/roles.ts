/**
 * GitHub's role names; `maintain` and `triage` only appear in `role_name`. Declared in core,
 * which decides who may do what; the GitHub port answers in these terms.
 */
export type RoleName = 'admin' | 'maintain' | 'write' | 'triage' | 'read' | 'none';

/** Who may steer the coordinator: write, maintain or admin (docs/commands.md). */
export const WRITE_ROLES: ReadonlySet<RoleName> = new Set(['admin', 'maintain', 'write']);
