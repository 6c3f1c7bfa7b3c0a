// npm run bench [-- --quick] [--only ingest,scheduling,fleet,planning,octokit,production,overlap,stack] [--profile]
//   [--processor-concurrency N]  (fleet what-if; its figures are named whatif_cN_*)
//   [--fleet-size <issues>x<tasks>x<repos>]  (fleet at another size; figures named size_<spec>_*)
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseFleetSize, runFleet, type FleetSize } from './fleet.js';
import { runIngest } from './ingest.js';
import { runPlanning } from './planning.js';
import { runOctokit } from './octokit.js';
import { runProduction } from './production.js';
import { runScheduling } from './scheduling.js';
import { runOverlap } from './overlap.js';
import { runStack } from './stack.js';
import { postgresVersion } from './lib/postgres.js';
import { Report } from './lib/report.js';
import { describeTargets } from './lib/targets.js';
import { nowMs } from './lib/stats.js';

const BENCHES = [
  'ingest',
  'scheduling',
  'fleet',
  'planning',
  'octokit',
  'production',
  'overlap',
  'stack',
] as const;
type BenchName = (typeof BENCHES)[number];

interface Args {
  quick: boolean;
  only: BenchName[];
  /** Child processes (the servers under test) write V8 CPU profiles to bench/profiles/. */
  profile: boolean;
  /** What-if for the fleet only: the delivery processor's concurrency (figures get a prefix). */
  processorConcurrency?: number;
  /** The fleet at a size of its own instead of the quick or full one. */
  fleetSize?: FleetSize;
}

function parseArgs(argv: string[]): Args {
  let quick = false;
  let profile = false;
  let processorConcurrency: number | undefined;
  let fleetSize: FleetSize | undefined;
  let only: BenchName[] = [...BENCHES];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--quick') quick = true;
    else if (arg === '--profile') profile = true;
    else if (arg === '--processor-concurrency') {
      processorConcurrency = Number(argv[++i]);
      if (!Number.isInteger(processorConcurrency) || processorConcurrency < 1)
        throw new Error('--processor-concurrency takes a positive integer');
    } else if (arg === '--fleet-size') fleetSize = parseFleetSize(argv[++i] ?? '');
    else if (arg === '--only' || arg.startsWith('--only=')) {
      const value = arg.includes('=') ? arg.slice(7) : argv[++i];
      const names = (value ?? '').split(',').filter(Boolean);
      const unknown = names.filter((n) => !(BENCHES as readonly string[]).includes(n));
      if (names.length === 0 || unknown.length > 0)
        throw new Error(`--only takes a list of ${BENCHES.join(', ')}; got "${value ?? ''}"`);
      only = names as BenchName[];
    } else
      throw new Error(
        `unknown argument ${arg} (use --quick, --only <names>, --profile, --processor-concurrency <n>, --fleet-size <i>x<t>x<r>)`,
      );
  }
  return { quick, only, profile, processorConcurrency, fleetSize };
}

async function main(): Promise<void> {
  const { quick, only, profile, processorConcurrency, fleetSize } = parseArgs(
    process.argv.slice(2),
  );
  const profileDir = fileURLToPath(new URL('profiles/', import.meta.url));
  const nodeArgs = profile ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
  const report = new Report();
  const started = nowMs();
  report.note(
    `agent-coordinator benchmarks (${quick ? 'quick' : 'full'}): ${only.join(', ')}; ${cpus().length} CPUs (${cpus()[0]?.model ?? '?'}), ${(totalmem() / 2 ** 30).toFixed(1)} GiB, node ${process.version}, Postgres ${await postgresVersion()}, ${new Date().toISOString()}`,
  );
  for (const name of only) {
    const benchStart = nowMs();
    report.note(`--- ${name}`);
    report.note(
      `load average before: ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );
    if (name === 'ingest') await runIngest(report, { quick, nodeArgs });
    else if (name === 'scheduling') await runScheduling(report, { quick });
    else if (name === 'fleet')
      await runFleet(report, { quick, nodeArgs, processorConcurrency, size: fleetSize });
    else if (name === 'planning') await runPlanning(report, { quick });
    else if (name === 'octokit') await runOctokit(report, { quick });
    else if (name === 'production') await runProduction(report, { nodeArgs });
    else if (name === 'overlap') await runOverlap(report, { quick, nodeArgs });
    else if (name === 'stack') await runStack(report, { quick });
    report.note(`${name} took ${((nowMs() - benchStart) / 1000).toFixed(1)} s`);
  }
  const path = fileURLToPath(new URL('results.json', import.meta.url));
  // --only updates its own figures and keeps the rest of the last run's.
  const previous = existsSync(path)
    ? (JSON.parse(readFileSync(path, 'utf8')) as Record<string, number>)
    : {};
  const results: Record<string, number> = { ...previous };
  for (const f of report.figures) results[f.name] = f.value;
  writeFileSync(path, `${JSON.stringify(results, null, 2)}\n`);
  report.note('targets (bench/README.md):');
  for (const line of describeTargets(results, new Set(report.figures.map((f) => f.name))))
    report.note(`  ${line}`);
  report.note(`total ${((nowMs() - started) / 1000).toFixed(1)} s; wrote bench/results.json`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
