import { lstat, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { run } from './root-commands.js';

/**
 * What an agent's user leaves outside the checkout (docs/worker.md, "The agent's user"). On a
 * runner that is reused (a self-hosted one that is not ephemeral) later jobs, of any repository,
 * and later agents share the machine's folders that every user may write: a closed network
 * would be bypassed by a copy of the code left there for them. Everything of the uid there goes
 * once its processes are dead, before the user is removed.
 */
const SHARED_FOLDERS = ['/tmp', '/var/tmp', '/dev/shm', '/run/lock', '/var/crash', '/dev/mqueue'];

/** The sweep's bound: an agent that leaves millions of files does not hold its job longer. */
const SWEEP_SECONDS = 60;

/**
 * Removes every file, folder, link, socket, FIFO and POSIX message queue `uid` owns in the shared
 * folders (and the worker's temporary folder), and its SysV shared memory, semaphores and message
 * queues. Returns what could not be removed, said for the attempt's failure; empty when all went.
 */
export async function removeLeftovers(root: string[], uid: number): Promise<string[]> {
  return [...(await removeFiles(root, uid)), ...(await removeIpcObjects(root, uid))];
}

/**
 * GNU find walks without following links or leaving each folder's file system, and removes each
 * entry relative to its folder's open descriptor (so a folder renamed to a link meanwhile leads
 * it nowhere); only entries of `uid` go, deepest first. Other jobs' files come and go meanwhile,
 * and find fails on one that went: whether anything of the uid remains is then looked up again.
 * A folder of the agent's that holds another user's file stays, and is said.
 */
async function removeFiles(root: string[], uid: number): Promise<string[]> {
  const folders: string[] = [];
  for (const folder of new Set([...SHARED_FOLDERS, tmpdir()]))
    if ((await lstat(folder).catch(() => undefined))?.isDirectory()) folders.push(folder);
  if (folders.length === 0) return [];
  const find = (...action: string[]) =>
    run([
      ...root,
      ...['timeout', '-s', 'KILL', String(SWEEP_SECONDS)],
      ...['find', '-P', ...folders, '-xdev', '-ignore_readdir_race', '-uid', String(uid)],
      ...action,
    ]);
  const tooLong = `the removal of its files in ${folders.join(', ')} took over ${SWEEP_SECONDS} s`;
  const swept = await find('-delete');
  if (swept.code === 0) return [];
  if (killedByTimeout(swept.code)) return [tooLong];
  const left = await find('-print0', '-quit');
  if (killedByTimeout(left.code)) return [tooLong];
  const path = left.stdout.split('\0')[0];
  if (!path) return [];
  // What find said of it (a folder not empty), among what it said of other jobs' files.
  const said = swept.stderr.split('\n').find((line) => line.includes(path));
  return [`files of its own remain, such as ${JSON.stringify(path)}${said ? ` (${said})` : ''}`];
}

/** timeout's exit code for a command it killed with KILL, and with its default TERM. */
function killedByTimeout(code: number): boolean {
  return code === 137 || code === 124;
}

/** ipcrm's option for each kind in /proc/sysvipc, and the name of its id column there. */
const IPC_KINDS = [
  { file: 'shm', option: '-m', id: 'shmid' },
  { file: 'sem', option: '-s', id: 'semid' },
  { file: 'msg', option: '-q', id: 'msqid' },
] as const;

/**
 * SysV IPC objects outlive their processes. The creator (`cuid`) keeps the right to remove and
 * change one after giving it to another owner (`uid`): either counts as the agent's.
 */
async function removeIpcObjects(root: string[], uid: number): Promise<string[]> {
  const found = await ipcObjectsOf(uid);
  if (found.length === 0) return [];
  await run([...root, 'ipcrm', ...found.flatMap(({ option, id }) => [option, id])]);
  const left = await ipcObjectsOf(uid);
  return left.length === 0
    ? []
    : [
        `SysV IPC objects of its own remain (${left.map((o) => `ipcrm ${o.option} ${o.id}`).join(', ')})`,
      ];
}

async function ipcObjectsOf(uid: number): Promise<{ option: string; id: string }[]> {
  const found: { option: string; id: string }[] = [];
  for (const kind of IPC_KINDS) {
    // No /proc/sysvipc: a kernel without SysV IPC, where there is none.
    const text = await readFile(`/proc/sysvipc/${kind.file}`, 'utf8').catch(() => '');
    const [header = '', ...rows] = text.trim().split('\n');
    const names = header.trim().split(/\s+/);
    const column = (fields: string[], name: string) => fields[names.indexOf(name)];
    for (const fields of rows.map((row) => row.trim().split(/\s+/))) {
      const owners = [column(fields, 'uid'), column(fields, 'cuid')];
      const id = column(fields, kind.id);
      if (id !== undefined && owners.includes(String(uid))) found.push({ option: kind.option, id });
    }
  }
  return found;
}
