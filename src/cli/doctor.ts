import { EnvError, parseEnv } from '../env.js';
import { runChecks } from './doctor/checks.js';
import { checkDatabase } from './doctor/database.js';
import { DoctorClient } from './doctor/client.js';
import { readAppManifest } from './doctor/permissions.js';
import { formatReport } from './doctor/report.js';
import type { CliIo } from './io.js';
import { packageVersion, projectRepository, workerActionName } from './templates.js';

const USAGE = 'usage: agent-coordinator doctor --repo owner/name [--public-url https://…]';

/**
 * `agent-coordinator doctor --repo owner/name`: checks, with the App's own credentials from the
 * environment (APP_ID, PRIVATE_KEY or PRIVATE_KEY_PATH, GHE_HOST/GHE_PROTOCOL), everything a
 * repository needs, that the App answers at PUBLIC_URL (or --public-url), and how it reaches its
 * database (DATABASE_URL, DIRECT_DATABASE_URL: pooled or direct, and what the role may create),
 * and prints what to fix. Exit 0 when all is well, 1 with problems, 2 when it cannot start
 * (usage, credentials).
 */
export async function runDoctor(args: string[], io: CliIo): Promise<number> {
  let repoArg: string | undefined;
  let publicUrl = io.env.PUBLIC_URL || undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--repo' || arg === '-R') repoArg = args[++i];
    else if (arg.startsWith('--repo=')) repoArg = arg.slice('--repo='.length);
    else if (arg === '--public-url') publicUrl = args[++i];
    else if (arg.startsWith('--public-url=')) publicUrl = arg.slice('--public-url='.length);
    else if (arg === '--help' || arg === '-h') {
      io.out(`${USAGE}\n`);
      return 0;
    } else {
      io.err(`agent-coordinator doctor: unexpected argument ${JSON.stringify(arg)}\n${USAGE}\n`);
      return 2;
    }
  }
  const match = /^([A-Za-z0-9-]+)\/([A-Za-z0-9._-]+)$/.exec(repoArg ?? '');
  if (!match) {
    io.err(`agent-coordinator doctor: --repo owner/name is required\n${USAGE}\n`);
    return 2;
  }
  const [, owner, repo] = match as unknown as [string, string, string];

  let env;
  try {
    env = parseEnv(io.env);
  } catch (error) {
    if (!(error instanceof EnvError)) throw error;
    io.err(`agent-coordinator doctor: ${error.message}\n`);
    return 2;
  }
  if (env.appId === undefined || env.privateKey === undefined) {
    io.err(
      'agent-coordinator doctor: needs the App credentials: APP_ID and PRIVATE_KEY (or PRIVATE_KEY_PATH)\n',
    );
    return 2;
  }

  const client = await DoctorClient.create({
    appId: env.appId,
    privateKey: env.privateKey,
    baseUrl: env.githubBaseUrl,
    owner,
    repo,
  });
  const findings = [
    ...(await checkDatabase(env)),
    ...(await runChecks(client, await readAppManifest(), {
      appVersion: await packageVersion(),
      actionName: workerActionName(await projectRepository()),
      publicUrl,
    })),
  ];
  const where = env.githubBaseUrl ?? 'https://api.github.com';
  io.out(formatReport(`agent-coordinator doctor: ${owner}/${repo} (${where})`, findings));
  return findings.some((f) => f.status === 'problem') ? 1 : 0;
}
