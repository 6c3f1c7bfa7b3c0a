import { readdirSync, readFileSync } from 'node:fs';

const TICK_MS = 10; // USER_HZ is 100 on Linux

function statOf(pid: number): { comm: string; cpuMs: number; childrenMs: number } | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const close = text.lastIndexOf(')');
    const comm = text.slice(text.indexOf('(') + 1, close);
    const fields = text.slice(close + 2).split(' ');
    // fields[0] is state (field 3); utime, stime, cutime, cstime are fields 14..17.
    const at = (n: number) => Number(fields[n - 3]);
    return {
      comm,
      cpuMs: (at(14) + at(15)) * TICK_MS,
      childrenMs: (at(16) + at(17)) * TICK_MS,
    };
  } catch {
    return undefined;
  }
}

/** CPU milliseconds used by one process so far. */
export function processCpuMs(pid: number): number {
  return statOf(pid)?.cpuMs ?? Number.NaN;
}

/**
 * CPU milliseconds used by the local Postgres server so far: every `postgres` process, plus what
 * the postmaster has reaped from backends that already exited. Linux only; NaN elsewhere.
 */
export function postgresCpuMs(): number {
  let total = 0;
  let found = false;
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  } catch {
    return Number.NaN;
  }
  for (const pid of pids) {
    const stat = statOf(Number(pid));
    if (!stat || stat.comm !== 'postgres') continue;
    found = true;
    total += stat.cpuMs + stat.childrenMs;
  }
  return found ? total : Number.NaN;
}

/** CPU use of the parties of one measured phase, per unit of work. */
export class CpuMeter {
  private readonly start: { self: number; child: number; postgres: number };

  constructor(private readonly childPid?: number) {
    this.start = this.read();
  }

  private read() {
    const self = process.cpuUsage();
    return {
      self: (self.user + self.system) / 1000,
      child: this.childPid ? processCpuMs(this.childPid) : 0,
      postgres: postgresCpuMs(),
    };
  }

  /** CPU ms used since construction by this process, the child and Postgres. */
  elapsed(): { selfMs: number; childMs: number; postgresMs: number } {
    const now = this.read();
    return {
      selfMs: now.self - this.start.self,
      childMs: now.child - this.start.child,
      postgresMs: now.postgres - this.start.postgres,
    };
  }
}

/**
 * CPU of the Postgres backends serving one database, which the machine's other users of the
 * same server do not touch (every `postgres` process counts theirs too). Samples the database's
 * backends (pg_stat_activity) every `everyMs` and sums what each used while it was seen: a
 * backend present at the start counts from there, one that appeared later from its start, and
 * one that exited counts to its last sample (at most `everyMs` of it is lost). Server-wide work
 * (WAL writer, checkpointer, autovacuum) is not included.
 */
export class DatabaseCpuMeter {
  private readonly used = new Map<number, { first: number; last: number }>();
  private readonly timer: NodeJS.Timeout;
  private sampling: Promise<void> = Promise.resolve();
  private started = false;
  private exited = 0;

  constructor(
    private readonly backends: () => Promise<number[]>,
    everyMs = 500,
  ) {
    this.sampling = this.sample();
    this.timer = setInterval(() => {
      this.sampling = this.sampling.then(() => this.sample());
    }, everyMs).unref();
  }

  private async sample(): Promise<void> {
    let pids: number[];
    try {
      pids = await this.backends();
    } catch {
      return;
    }
    for (const pid of pids) {
      const ms = processCpuMs(pid);
      if (!Number.isFinite(ms)) continue;
      const seen = this.used.get(pid);
      if (seen && ms >= seen.last) seen.last = ms;
      else {
        // A new backend, or one that took the pid of an exited one.
        if (seen) this.exited += seen.last - seen.first;
        this.used.set(pid, { first: this.started ? 0 : ms, last: ms });
      }
    }
    this.started = true;
  }

  /** CPU ms of the database's backends since construction; stops sampling. */
  async stop(): Promise<number> {
    clearInterval(this.timer);
    await this.sampling;
    await this.sample();
    let total = this.exited;
    for (const { first, last } of this.used.values()) total += last - first;
    return total;
  }
}
