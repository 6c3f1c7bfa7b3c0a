/** The worker's last line for a failure: `::error::agent-coordinator: <reason>`, then its detail. */
export function errorLine(reason: string, flags = ''): RegExp {
  return new RegExp(`^::error::agent-coordinator: ${reason}(?: \\(.*\\))?$`, flags);
}
