import { describe, expect, it } from 'vitest';
import { parsePlanYaml } from '../../../src/core/plan/index.js';
import { LIMITS } from './fixtures.js';

const plan = (files: string) => parsePlanYaml(`- id: a\n  title: A\n  files: ${files}\n`, LIMITS);

describe('files: in the tasks block', () => {
  it.each([
    { files: '[src/login/**]', expected: ['src/login/**'] },
    {
      files: '[src/a.ts, "docs/*.md", "app/[id]/page.tsx"]',
      expected: ['src/a.ts', 'docs/*.md', 'app/[id]/page.tsx'],
    },
    { files: '["src/{a,b}.ts", src/dir/]', expected: ['src/{a,b}.ts', 'src/dir/'] },
    { files: '[src/a.ts, src/a.ts]', expected: ['src/a.ts'] },
    { files: '[]', expected: [] },
  ])('keeps $files', ({ files, expected }) => {
    const result = plan(files);
    expect(result.ok && result.plan.tasks[0]?.files).toEqual(expected);
  });

  it('leaves a task without files: (or with an empty value) undeclared', () => {
    for (const result of [
      parsePlanYaml('- id: a\n  title: A\n', LIMITS),
      parsePlanYaml('- id: a\n  title: A\n  files:\n', LIMITS),
    ]) {
      expect(result.ok).toBe(true);
      expect(result.ok && 'files' in result.plan.tasks[0]!).toBe(false);
    }
  });

  it.each([
    { files: 'src/login/**', says: ['must be a list of paths or globs'] },
    { files: '{a: 1}', says: ['must be a list of paths or globs'] },
    { files: '[[a]]', says: ['entry 1', 'must be a path or glob, not a list'] },
    { files: '[""]', says: ['`""`', 'is blank'] },
    { files: '[null]', says: ['entry 1', 'not empty'] },
    { files: '[/etc/passwd]', says: ['`/etc/passwd`', 'starts with `/`'] },
    { files: '[src/../secret]', says: ['`..` segment'] },
    { files: '[./src/a.ts]', says: ['`.` or `..` segment'] },
    { files: '["src\\\\a.ts"]', says: ['separated by `/`'] },
    { files: '[src//a.ts]', says: ['empty segment'] },
    { files: '["src/{a,b.ts"]', says: ['unbalanced or nested `{}`'] },
    { files: '["src/{a,{b,c}}.ts"]', says: ['unbalanced or nested `{}`'] },
    { files: '["src/{a/b,c}.ts"]', says: ['a `/` inside `{}`'] },
    { files: `[${'x'.repeat(257)}]`, says: ['longer than 256 characters'] },
    {
      files: `[${Array.from({ length: 101 }, (_, i) => `f${i}`).join(', ')}]`,
      says: ['101 entries; the limit is 100'],
    },
  ])('refuses files: $files', ({ files, says }) => {
    const result = plan(files);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors).toHaveLength(1);
    const [error] = result.errors;
    expect(error).toMatchObject({ code: 'invalid_value', taskId: 'a' });
    expect(error!.path).toMatch(/^\[0\]\.files/);
    for (const s of says) expect(error!.message).toContain(s);
  });

  it('suggests files for a near-miss key', () => {
    const result = parsePlanYaml('- id: a\n  title: A\n  file: [x]\n', LIMITS);
    expect(!result.ok && result.errors[0]?.message).toContain('did you mean `files`?');
  });
});
