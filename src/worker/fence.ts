/** A fence longer than any backtick run inside, so the content cannot close it early. */
export function fenced(info: string, content: string): string {
  const longest = Math.max(0, ...[...content.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return `${fence}${info}\n${content.replace(/\n+$/, '')}\n${fence}`;
}
