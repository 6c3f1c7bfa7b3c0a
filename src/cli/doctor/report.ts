/** One line of the doctor's report. `unknown`: it could not be checked (never a failure). */
export interface Finding {
  status: 'ok' | 'problem' | 'unknown';
  /** What was checked, e.g. "workflow .github/workflows/agent-worker.yml". */
  subject: string;
  detail: string;
  fix?: string;
}

export const ok = (subject: string, detail: string): Finding => ({
  status: 'ok',
  subject,
  detail,
});
export const problem = (subject: string, detail: string, fix?: string): Finding => ({
  status: 'problem',
  subject,
  detail,
  ...(fix ? { fix } : {}),
});
export const unknown = (subject: string, detail: string, fix?: string): Finding => ({
  status: 'unknown',
  subject,
  detail,
  ...(fix ? { fix } : {}),
});

const MARK: Readonly<Record<Finding['status'], string>> = {
  ok: 'ok  ',
  problem: 'FAIL',
  unknown: '??  ',
};

function indent(text: string, prefix: string): string {
  return text
    .split('\n')
    .map((line, i) => (i === 0 ? line : `${prefix}${line}`))
    .join('\n');
}

export function formatReport(title: string, findings: readonly Finding[]): string {
  const lines = [title, ''];
  for (const f of findings) {
    lines.push(`  ${MARK[f.status]}  ${f.subject}: ${indent(f.detail, '        ')}`);
    if (f.fix && f.status !== 'ok') lines.push(`        fix: ${indent(f.fix, '             ')}`);
  }
  const problems = findings.filter((f) => f.status === 'problem');
  const unknowns = findings.filter((f) => f.status === 'unknown');
  lines.push('');
  if (problems.length === 0) {
    lines.push(
      unknowns.length === 0
        ? 'All good: the repository is ready for agent-coordinator.'
        : `No problems found; ${unknowns.length} ${unknowns.length === 1 ? 'thing' : 'things'} could not be checked (marked ??).`,
    );
  } else {
    lines.push(`${problems.length} ${problems.length === 1 ? 'problem' : 'problems'} to fix:`);
    problems.forEach((p, i) =>
      lines.push(`  ${i + 1}. ${p.subject}: ${(p.detail.split('\n')[0] ?? '').replace(/:$/, '')}`),
    );
    if (unknowns.length > 0)
      lines.push(`${unknowns.length} more could not be checked (marked ?? above).`);
  }
  return `${lines.join('\n')}\n`;
}
