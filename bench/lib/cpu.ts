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
