// A subset of `git check-ref-format --branch` that also keeps the name safe to pass to
// the GitHub API and to a workflow input.

// eslint-disable-next-line no-control-regex -- git forbids control characters in ref names
const FORBIDDEN_CHARS = /[\u0000-\u0020\u007f~^:?*[\\]/;

/** Why `name` is not a usable branch name, or undefined when it is. */
export function branchNameProblem(name: string): string | undefined {
  if (name === '') return 'it is empty';
  if (name.length > 255) return 'it is longer than 255 characters';
  if (FORBIDDEN_CHARS.test(name)) {
    return 'it contains a space, a control character or one of ~ ^ : ? * [ \\';
  }
  if (name.startsWith('-')) return 'it starts with `-`';
  if (name.includes('..')) return 'it contains `..`';
  if (name.includes('@{')) return 'it contains `@{`';
  if (name === '@') return 'it is `@`';
  if (name.startsWith('/') || name.endsWith('/')) return 'it starts or ends with `/`';
  if (name.includes('//')) return 'it contains `//`';
  if (name.endsWith('.')) return 'it ends with `.`';
  for (const part of name.split('/')) {
    if (part.startsWith('.')) return 'a path component starts with `.`';
    if (part.endsWith('.lock')) return 'a path component ends with `.lock`';
  }
  return undefined;
}
