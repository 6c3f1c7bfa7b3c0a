import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Git } from './git.js';

/**
 * Every attribute git reads when it merges and writes a merge's files: the merge driver and the
 * conflict markers' length (git's merge-ll.c), and the conversions of a file written to or read
 * from the working tree (convert.c: line endings, `ident`, filters, encodings). `!name` leaves
 * it unspecified, as though no `.gitattributes` named it.
 */
const MERGE_ATTRIBUTES = [
  'merge',
  'conflict-marker-size',
  'text',
  'eol',
  'crlf',
  'ident',
  'filter',
  'working-tree-encoding',
];
const NO_TREE_ATTRIBUTES = `* ${MERGE_ATTRIBUTES.map((name) => `!${name}`).join(' ')}\n`;

/**
 * Runs `merge` (a git merge of the worker's in this repository) with no `.gitattributes` of any
 * tree, the working tree's or the index's, taking part. The checkout is the task branch as an
 * earlier attempt's agent, or the stack parent's, pushed it: its `* merge=union` would turn each
 * conflict into both sides' lines, and a longer `conflict-marker-size` would hide the markers
 * from the check for them. `$GIT_DIR/info/attributes` outranks every `.gitattributes`
 * (gitattributes(5)), its later lines its earlier ones, and a macro a tree defines expands only
 * into what nothing above it set. `--attr-source` (git 2.41) would not do: runners with older
 * git run the worker too.
 */
export async function withoutTreeAttributes<T>(git: Git, merge: () => Promise<T>): Promise<T> {
  const file = await git.out([
    'rev-parse',
    '--path-format=absolute',
    '--git-path',
    'info/attributes',
  ]);
  const before = await readIfPresent(file);
  await mkdir(dirname(file), { recursive: true });
  await writeFile(
    file,
    before === undefined ? NO_TREE_ATTRIBUTES : `${before}\n${NO_TREE_ATTRIBUTES}`,
  );
  try {
    return await merge();
  } finally {
    if (before === undefined) await rm(file, { force: true });
    else await writeFile(file, before);
  }
}

async function readIfPresent(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}
