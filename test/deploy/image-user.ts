import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const exec = promisify(execFile);

/** The unprivileged user the image runs as (`USER node`), on this machine. */
export interface ImageUser {
  name: string;
  uid: number;
  gid: number;
  /**
   * `argv` run as this user (and no supplementary group), as the image's `USER` runs it, with
   * exactly `env` (set after sudo, which would reset it).
   */
  wrap(argv: string[], env: Record<string, string | undefined>): string[];
  /** `argv` run as root: to chown to this user and clean up what it wrote. */
  privileged(argv: string[]): string[];
}

// The official node images' user: uid and gid 1000.
const IMAGE_UID = 1000;

async function succeeds(argv: string[]): Promise<boolean> {
  try {
    await exec(argv[0]!, argv.slice(1));
    return true;
  } catch {
    return false;
  }
}

/**
 * The machine's user `name`, created (uid 1000 when that is free, as in the image) when it is
 * missing. Needs root or passwordless sudo, as GitHub's runners have; says so otherwise.
 */
export async function imageUser(name: string): Promise<ImageUser> {
  const sudo =
    process.getuid?.() === 0
      ? []
      : (await succeeds(['sudo', '-n', 'true']))
        ? ['sudo', '-n']
        : undefined;
  if (!sudo)
    throw new Error(
      `starting the image's layout as its user "${name}" needs root or passwordless sudo`,
    );
  const privileged = (argv: string[]) => [...sudo, ...argv];
  if (!(await succeeds(['id', '-u', name]))) {
    const uidFree = !(await succeeds(['getent', 'passwd', String(IMAGE_UID)]));
    const uid = uidFree ? ['--uid', String(IMAGE_UID)] : [];
    const [cmd, ...args] = privileged([
      'useradd',
      '--system',
      '--user-group',
      '--no-create-home',
      '--shell',
      '/usr/sbin/nologin',
      ...uid,
      name,
    ]);
    await exec(cmd!, args);
  }
  const uid = Number((await exec('id', ['-u', name])).stdout.trim());
  const gid = Number((await exec('id', ['-g', name])).stdout.trim());
  return {
    name,
    uid,
    gid,
    wrap: (argv, env) => {
      const vars = Object.entries(env)
        .filter((e): e is [string, string] => e[1] !== undefined)
        .map(([k, v]) => `${k}=${v}`);
      const asUser = ['setpriv', `--reuid=${uid}`, `--regid=${gid}`, '--clear-groups', '--'];
      return privileged([...asUser, 'env', '-i', ...vars, ...argv]);
    },
    privileged,
  };
}
