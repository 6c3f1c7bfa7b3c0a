import { execFile } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
} from 'node:fs';
import { basename, join, posix, relative } from 'node:path';
import { promisify } from 'node:util';
import {
  parseCopy,
  parseDockerfile,
  parseEnvInstruction,
  parseExecForm,
  type Stage,
} from './dockerfile.js';
import type { ImageUser } from './image-user.js';

const exec = promisify(execFile);

/** The final stage of the Dockerfile, laid out on this machine's file system. */
export interface ImageLayout {
  /** The image's `/`. */
  root: string;
  /** The host path of a path inside the image. */
  hostPath(imagePath: string): string;
  /** `WORKDIR`, as a host path. */
  workdir: string;
  /** `ENV`, with paths inside the image turned into host paths. */
  env: Record<string, string>;
  user: string;
  cmd: string[];
  /** `HEALTHCHECK`'s command, run by a shell. */
  healthcheck: string;
  /** `VOLUME`s, as paths inside the image. */
  volumes: string[];
}

export interface LayoutOptions {
  /** The build context: the repository, with its node_modules installed by `npm ci`. */
  context: string;
  dockerfile: string;
  /** An empty directory for the stages' file systems. */
  into: string;
  /** The machine's stand-in for the image's `USER`. */
  user: ImageUser;
}

interface StageState {
  name?: string;
  root: string;
  workdir: string;
  env: Record<string, string>;
  user: string;
  cmd: string[];
  healthcheck: string;
  volumes: string[];
}

/**
 * Builds the image as `docker build` would, without Docker: each stage gets a directory for its
 * `/`, its `COPY`s copy from the context (minus `.dockerignore`) or from an earlier stage, and
 * its `RUN`s are reproduced from a table of the commands the Dockerfile uses. A command missing
 * from the table fails the build, so the test keeps following the Dockerfile.
 */
export async function buildImageLayout(options: LayoutOptions): Promise<ImageLayout> {
  const stages = parseDockerfile(readFileSync(options.dockerfile, 'utf8'));
  const ignored = dockerignore(options.context);
  const built: StageState[] = [];
  for (const [index, stage] of stages.entries()) {
    const root = join(options.into, `stage-${index}`);
    mkdirSync(root, { recursive: true });
    built.push(await buildStage(stage, root, built, ignored, options));
  }
  const final = built.at(-1)!;
  // What the image's user must read: the stage directories are the test's own, not the image's.
  chmodSync(options.into, 0o755);
  chmodSync(final.root, 0o755);
  const hostPath = (imagePath: string) => inRoot(final.root, '/', imagePath);
  return {
    root: final.root,
    hostPath,
    workdir: hostPath(final.workdir),
    env: Object.fromEntries(
      Object.entries(final.env).map(([k, v]) => [k, v.startsWith('/') ? hostPath(v) : v]),
    ),
    user: final.user,
    cmd: final.cmd,
    healthcheck: final.healthcheck,
    volumes: final.volumes,
  };
}

async function buildStage(
  stage: Stage,
  root: string,
  earlier: StageState[],
  ignored: Set<string>,
  options: LayoutOptions,
): Promise<StageState> {
  const state: StageState = {
    name: stage.name,
    root,
    workdir: '/',
    env: {},
    user: 'root',
    cmd: [],
    healthcheck: '',
    volumes: [],
  };
  for (const { keyword, args } of stage.instructions) {
    switch (keyword) {
      case 'WORKDIR':
        state.workdir = posix.resolve(state.workdir, args);
        mkdirSync(inRoot(root, '/', state.workdir), { recursive: true });
        break;
      case 'COPY':
        copy(args, state, earlier, ignored, options.context);
        break;
      case 'RUN':
        for (const command of args.split('&&').map((c) => c.trim().replace(/\s+/g, ' ')))
          await reproduce(command, state, options);
        break;
      case 'ENV':
        Object.assign(state.env, parseEnvInstruction(args));
        break;
      case 'USER':
        state.user = args;
        break;
      case 'CMD':
        state.cmd = parseExecForm('CMD', args);
        break;
      case 'HEALTHCHECK': {
        const match = /^(?:--\S+\s+)*CMD\s+(.+)$/.exec(args);
        if (!match) throw new Error(`Dockerfile: cannot read HEALTHCHECK ${args}`);
        state.healthcheck = match[1]!;
        break;
      }
      case 'VOLUME':
        state.volumes = args.startsWith('[') ? parseExecForm('VOLUME', args) : args.split(/\s+/);
        break;
      case 'EXPOSE':
        break;
      default:
        throw new Error(`Dockerfile: the image test does not reproduce ${keyword} ${args}`);
    }
  }
  return state;
}

/** A path inside a stage (absolute, or relative to `workdir`) as a host path under `root`. */
function inRoot(root: string, workdir: string, path: string): string {
  return join(root, posix.resolve(workdir, path));
}

function copy(
  args: string,
  state: StageState,
  earlier: StageState[],
  ignored: Set<string>,
  context: string,
): void {
  const { from, sources, destination } = parseCopy(args);
  const source = from === undefined ? undefined : earlier.find((s) => s.name === from);
  if (from !== undefined && !source) throw new Error(`Dockerfile: no stage named ${from}`);
  const target = inRoot(state.root, state.workdir, destination);
  const intoDirectory = destination.endsWith('/') || sources.length > 1;
  for (const path of sources) {
    const hostSource = source ? inRoot(source.root, '/', path) : join(context, path);
    if (!existsSync(hostSource)) throw new Error(`Dockerfile: COPY ${path}: not found`);
    if (statSync(hostSource).isDirectory()) {
      // A directory's contents are copied, not the directory itself.
      cpSync(hostSource, target, {
        recursive: true,
        verbatimSymlinks: true,
        filter: (p) => source !== undefined || !ignored.has(relative(context, p)),
      });
    } else {
      const file = intoDirectory ? join(target, basename(path)) : target;
      mkdirSync(intoDirectory ? target : join(target, '..'), { recursive: true });
      cpSync(hostSource, file);
    }
  }
}

/**
 * `.dockerignore`'s entries, as paths relative to the context. Only plain paths are read:
 * a wildcard or an exception fails the build until this learns it.
 */
function dockerignore(context: string): Set<string> {
  const file = join(context, '.dockerignore');
  if (!existsSync(file)) return new Set();
  const entries = readFileSync(file, 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
  for (const entry of entries)
    if (/[*?[!]/.test(entry))
      throw new Error(`.dockerignore: the image test does not read the pattern ${entry}`);
  return new Set(entries.map((entry) => posix.normalize(entry).replace(/^\/|\/$/g, '')));
}

async function npm(args: string[], cwd: string): Promise<void> {
  try {
    await exec('npm', args, { cwd, maxBuffer: 64 * 1024 * 1024 });
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`npm ${args.join(' ')} failed in ${cwd}:\n${stdout ?? ''}${stderr ?? ''}`, {
      cause: error,
    });
  }
}

/** The Dockerfile's `RUN` commands, each reproduced on this machine. */
async function reproduce(command: string, state: StageState, options: LayoutOptions) {
  const workdir = inRoot(state.root, '/', state.workdir);
  const modules = join(workdir, 'node_modules');
  if (command === 'npm ci --ignore-scripts') {
    // The repository's own install, by `npm ci` from this same lockfile: a second full install
    // would take minutes. (The build only reads it.)
    const lockfile = (dir: string) => readFileSync(join(dir, 'package-lock.json'), 'utf8');
    if (lockfile(workdir) !== lockfile(options.context))
      throw new Error('the stage holds another package-lock.json than the repository');
    symlinkSync(join(options.context, 'node_modules'), modules);
    return;
  }
  if (command === 'npm run build') return npm(['run', 'build'], workdir);
  if (command === 'npm prune --omit=dev --ignore-scripts') {
    // What prune leaves of a full install: the lockfile's packages without the dev ones.
    rmSync(modules);
    return npm(
      ['ci', '--omit=dev', '--ignore-scripts', '--prefer-offline', '--no-audit', '--no-fund'],
      workdir,
    );
  }
  const mkdir = /^mkdir -p (\S+)$/.exec(command);
  if (mkdir) {
    mkdirSync(inRoot(state.root, state.workdir, mkdir[1]!), { recursive: true });
    return;
  }
  const chown = /^chown (\w+):(\w+) (\S+)$/.exec(command);
  if (chown && chown[1] === options.user.name && chown[2] === options.user.name) {
    const path = inRoot(state.root, state.workdir, chown[3]!);
    const [cmd, ...args] = options.user.privileged([
      'chown',
      `${options.user.uid}:${options.user.gid}`,
      path,
    ]);
    await exec(cmd!, args);
    return;
  }
  throw new Error(`Dockerfile: the image test does not reproduce RUN ${command}`);
}
