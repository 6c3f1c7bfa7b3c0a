import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { TEST_APP_ID, TEST_PRIVATE_KEY, TEST_WEBHOOK_SECRET } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.js';
import { spawnApp, type AppProcess } from '../helpers/process.js';
import type { DoubleReport, DoubleRequest, StackPlay, StartParams } from './shared.js';

type Params<M extends DoubleRequest['method']> = Extract<DoubleRequest, { method: M }>['params'];
interface Results {
  start: { double: number; gheHost: string };
  openLabelledIssue: number;
  waitForRunDone: true;
  settle: true;
  report: DoubleReport;
  close: true;
}

/** The process running `double-process.ts`: GitHub doubles driven over IPC, one per scenario. */
export class DoubleProcess {
  private nextId = 1;
  private readonly pending = new Map<
    number,
    { resolve: (value: unknown) => void; reject: (error: Error) => void }
  >();
  private readonly exited: Promise<unknown>;

  private constructor(private readonly child: ChildProcess) {
    this.exited = once(child, 'exit');
    child.on(
      'message',
      (message: { id?: number; ok?: boolean; result?: unknown; error?: string }) => {
        if (message.id === undefined) return;
        const waiter = this.pending.get(message.id);
        this.pending.delete(message.id);
        if (message.ok) waiter?.resolve(message.result);
        else waiter?.reject(new Error(`double process: ${message.error}`));
      },
    );
    void this.exited.then(() => {
      for (const waiter of this.pending.values())
        waiter.reject(new Error('the double process exited'));
      this.pending.clear();
    });
  }

  static async start(): Promise<DoubleProcess> {
    const child = fork(resolve(import.meta.dirname, 'double-process.ts'), [], {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const [ready] = (await Promise.race([
      once(child, 'message'),
      once(child, 'exit').then(() => {
        throw new Error('the double process exited before it was ready');
      }),
    ])) as [{ ready?: boolean }];
    if (!ready.ready) throw new Error('the double process did not say it was ready');
    return new DoubleProcess(child);
  }

  /** A new double in this process, set up for the docs/tasks-block.md run. */
  async startDouble(params: StartParams): Promise<Double> {
    const { double, gheHost } = await this.send(undefined, 'start', params);
    return new Double(this, double, gheHost);
  }

  send<M extends DoubleRequest['method']>(
    double: number | undefined,
    method: M,
    params: Params<M>,
  ): Promise<Results[M]> {
    const id = this.nextId++;
    return new Promise((resolvePromise, reject) => {
      this.pending.set(id, { resolve: resolvePromise as (value: unknown) => void, reject });
      this.child.send({ id, double, method, params });
    });
  }

  async close(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.child.kill('SIGKILL');
    await this.exited;
  }
}

/** One scenario's double. */
export class Double {
  constructor(
    private readonly process: DoubleProcess,
    readonly id: number,
    readonly gheHost: string,
  ) {}

  call<M extends Exclude<DoubleRequest['method'], 'start'>>(
    method: M,
    params: Params<M>,
  ): Promise<Results[M]> {
    return this.process.send(this.id, method, params);
  }
}

export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  return port;
}

export interface CrashScenario {
  /** Crash points (`name` or `name#k`), one per start; the start after the last runs clean. */
  crashes: string[];
  /** No tasks block in the issue: the planner job writes the plan. */
  planner?: boolean;
  /** task_002 declares `files:`, so its PR's changed files are read and recorded. */
  files?: boolean;
  /** Events GitHub never delivers: the sweep has to find what they would have said. */
  missedEvents?: string[];
  /** Merges go through the default branch's merge queue. */
  mergeQueue?: boolean;
  /** `dispatch.stack`, and what the maintainer does to the stack's parent (shared.ts). */
  stack?: StackPlay;
  /** A maintainer's comment on the issue right after the label (a command to crash in). */
  command?: string;
  /** How long the run may take to finish after the last restart. */
  finishWithinMs?: number;
  /**
   * `false`: after the last restart the sweep runs once at start and then not again (its schedule
   * is once a year), so the run must finish on that startup pass and on events.
   */
  periodicSweep?: false;
}

export interface ScenarioOutcome {
  issue: number;
  report: DoubleReport;
  /** Per task key, its attempts as the database has them. */
  attempts: Map<string, Array<{ attempt: number; phase: string; workflowRunId: number | null }>>;
  /** The states of the issue's runs, oldest first (one run is expected). */
  runStates: string[];
  /** Every delivery id the coordinator's inbox holds. */
  storedDeliveries: Set<string>;
}

/** One crash scenario end to end: real coordinator processes, the double in its own process. */
export class CrashRun {
  readonly outputs: string[][] = [];
  /** When each phase ended (for the logs). */
  readonly marks: Array<[string, number]> = [[`start`, Date.now()]];
  private double?: Double;
  private database?: TestDatabase;
  private app?: AppProcess;

  constructor(
    private readonly scenario: CrashScenario,
    private readonly doubles: DoubleProcess,
    private readonly templateDatabase: string,
  ) {}

  async run(): Promise<ScenarioOutcome> {
    const { scenario } = this;
    // The same port for every coordinator start, so the webhook URL GitHub has stays valid.
    const port = await freePort();
    // Each is kept as soon as it exists, so that close() removes it whatever fails.
    const [database, double] = await Promise.all([
      createTestDatabase(this.templateDatabase).then((d) => (this.database = d)),
      this.doubles
        .startDouble({
          webhookSecret: TEST_WEBHOOK_SECRET,
          appId: TEST_APP_ID,
          webhookUrl: `http://127.0.0.1:${port}/api/github/webhooks`,
          missedEvents: scenario.missedEvents,
          mergeQueue: scenario.mergeQueue,
          stack: scenario.stack,
        })
        .then((d) => (this.double = d)),
    ]);
    this.mark('database and double');
    const env = {
      APP_ID: String(TEST_APP_ID),
      PRIVATE_KEY: TEST_PRIVATE_KEY,
      WEBHOOK_SECRET: TEST_WEBHOOK_SECRET,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: database.url,
      GHE_HOST: double.gheHost,
      GHE_PROTOCOL: 'http',
      SWEEP_SCHEDULE: '* * * * * *',
      LOG_LEVEL: 'info',
    };

    let issue = 0;
    for (const [index, crashAt] of scenario.crashes.entries()) {
      const app = this.startApp({ ...env, AC_CRASH_AT: crashAt });
      if (index === 0) {
        // A process start waits its turn on a busy 2-CPU machine (tsx, then Postgres): an
        // event to wait for, not a speed to hold.
        await app.waitForLine(/agent-coordinator listening/, 90_000);
        this.mark('listening, labelling');
        issue = await double.call('openLabelledIssue', {
          withPlan: !scenario.planner,
          ...(scenario.command ? { command: scenario.command } : {}),
          ...(scenario.files ? { files: true } : {}),
        });
      }
      // The point must be reached: the process dies by SIGKILL before the run is done.
      const done = double
        .call('waitForRunDone', { issue, timeoutMs: 150_000 })
        .then(() => 'done' as const);
      const outcome = await Promise.race([app.exited.then(() => 'exited' as const), done]);
      this.mark(`ended: ${outcome}`);
      if (outcome === 'done')
        throw new Error(`crash point ${crashAt} was never reached: the run finished without it`);
      if (app.child.signalCode !== 'SIGKILL')
        throw new Error(
          `the coordinator exited with ${app.child.exitCode} instead of crashing at ${crashAt}:\n${this.tail()}`,
        );
      void done.catch(() => {});
    }

    const last = this.startApp(
      scenario.periodicSweep === false ? { ...env, SWEEP_SCHEDULE: '0 0 1 1 *' } : env,
    );
    const exited = last.exited.then((code) => {
      throw new Error(`the coordinator exited (${code}) before the run was done`);
    });
    await Promise.race([
      double.call('waitForRunDone', { issue, timeoutMs: scenario.finishWithinMs ?? 150_000 }),
      exited,
    ]);
    void exited.catch(() => {});
    this.mark('run done');
    await double.call('settle', {});
    const report = await double.call('report', { issue });
    return { issue, report, ...(await this.readDatabase(issue)) };
  }

  private mark(what: string): void {
    this.marks.push([what, Date.now()]);
  }

  private startApp(env: Record<string, string>): AppProcess {
    this.mark(`coordinator start ${this.outputs.length + 1}`);
    const app = spawnApp(env);
    this.app = app;
    this.outputs.push(app.output);
    return app;
  }

  /** Every line each coordinator process wrote, to `<dir>/<name>.log` (CHAOS_LOG_DIR). */
  saveLogs(dir: string, name: string): void {
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, `${name.replace(/[^\w.#-]+/g, '_')}.log`),
      [
        ...this.marks.map(([what, at]) => `${at - this.marks[0]![1]} ms: ${what}`),
        ...this.outputs.map((o, i) => `--- coordinator start ${i + 1} ---\n${o.join('\n')}`),
      ].join('\n'),
    );
  }

  /** The last lines each coordinator process wrote (for failure messages). */
  tail(lines = 40): string {
    return this.outputs
      .map((output, i) => `--- coordinator start ${i + 1} ---\n${output.slice(-lines).join('\n')}`)
      .join('\n');
  }

  private async readDatabase(issue: number) {
    const client = new pg.Client({ connectionString: this.database!.url });
    await client.connect();
    try {
      const rows = await client.query<{
        task_key: string;
        attempt: number;
        phase: string;
        workflow_run_id: string | null;
      }>(
        `select t.task_key, a.attempt, a.phase, a.workflow_run_id
           from attempts a join tasks t on t.id = a.task_id join runs r on r.id = t.run_id
          where r.issue_number = $1 order by t.task_key, a.attempt`,
        [issue],
      );
      const attempts: ScenarioOutcome['attempts'] = new Map();
      for (const row of rows.rows) {
        const list = attempts.get(row.task_key) ?? [];
        list.push({
          attempt: row.attempt,
          phase: row.phase,
          workflowRunId: row.workflow_run_id === null ? null : Number(row.workflow_run_id),
        });
        attempts.set(row.task_key, list);
      }
      const runs = await client.query<{ state: string }>(
        'select state from runs where issue_number = $1 order by generation',
        [issue],
      );
      const stored = await client.query<{ delivery_id: string }>(
        'select delivery_id from webhook_deliveries',
      );
      return {
        attempts,
        runStates: runs.rows.map((r) => r.state),
        storedDeliveries: new Set(stored.rows.map((r) => r.delivery_id)),
      };
    } finally {
      await client.end();
    }
  }

  /** Stops whatever is still running; safe to call more than once. */
  async close(): Promise<void> {
    await this.app?.kill('SIGKILL');
    await this.double?.call('close', {}).catch(() => {});
    await this.database?.drop();
    this.database = undefined;
  }
}
