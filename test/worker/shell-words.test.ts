import { describe, expect, it } from 'vitest';
import { splitShellWords } from '../../src/worker/shell-words.js';

describe('splitShellWords', () => {
  it.each([
    ['claude -p --model x', ['claude', '-p', '--model', 'x']],
    ['  node   "/a b/agent.mjs"  ', ['node', '/a b/agent.mjs']],
    [`aider --message-file "$AC_PROMPT_FILE"`, ['aider', '--message-file', '$AC_PROMPT_FILE']],
    [`echo 'a "b" $(c)'`, ['echo', 'a "b" $(c)']],
    [`echo "a \\"b\\" \\$x \\n"`, ['echo', 'a "b" $x \\n']],
    ['a\\ b c', ['a b', 'c']],
    [`x '' ""`, ['x', '', '']],
    ['a;b|c', ['a;b|c']],
    ['', []],
  ])('%s', (line, words) => {
    expect(splitShellWords(line)).toEqual(words);
  });

  it('rejects unterminated quotes and a trailing backslash', () => {
    expect(() => splitShellWords(`echo "oops`)).toThrow(/unterminated " quote/);
    expect(() => splitShellWords(`echo 'oops`)).toThrow(/unterminated ' quote/);
    expect(() => splitShellWords('echo \\')).toThrow(/backslash/);
  });
});
