/**
 * Split a command line into argv the way a POSIX shell would quote it, and do nothing else:
 * no variables, globs, substitutions or operators. `AGENT_COMMAND` is a repository variable
 * set by a maintainer, but running it through a shell would still invite surprises, and the
 * prompt never goes near it (it travels on stdin).
 */
export function splitShellWords(line: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let quote: "'" | '"' | undefined;

  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote === "'") {
      if (c === "'") quote = undefined;
      else word += c;
      continue;
    }
    if (quote === '"') {
      if (c === '"') quote = undefined;
      else if (c === '\\' && i + 1 < line.length && '"\\$`\n'.includes(line[i + 1]!)) {
        const next = line[++i]!;
        if (next !== '\n') word += next;
      } else word += c;
      continue;
    }
    if (c === "'" || c === '"') {
      quote = c;
      inWord = true;
    } else if (c === '\\') {
      const next = line[++i];
      if (next === undefined) throw new Error('AGENT_COMMAND: ends with a lone backslash');
      if (next !== '\n') {
        word += next;
        inWord = true;
      }
    } else if (/\s/.test(c)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (quote) throw new Error(`AGENT_COMMAND: unterminated ${quote} quote`);
  if (inWord) words.push(word);
  return words;
}
