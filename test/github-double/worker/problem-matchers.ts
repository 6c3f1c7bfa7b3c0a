// Problem matchers, as the Actions runner reads them (actions/toolkit docs/problem-matchers.md;
// actions/runner `OutputManager.OnDataReceived`, `IssueMatcher`). A step registers them with
// `##[add-matcher]<file>`, and they stay for the rest of the job: every later line any step
// prints that is not a command it carried out (commands stopped or not) is matched against each
// matcher, newest first; the first match becomes an annotation of the job's check run, whose
// message is the part of the line the pattern's `message` group names. Before matching, the
// runner strips what it takes for a colour code: its pattern is `\x0033\[[0-9;]*m?`, which .NET
// reads as NUL, `33[`, digits and semicolons, and an optional `m`.

export interface MatcherPattern {
  regexp: string;
  file?: number;
  line?: number;
  column?: number;
  severity?: number;
  code?: number;
  message?: number;
  loop?: boolean;
}

export interface MatcherConfig {
  owner: string;
  severity?: string;
  pattern: MatcherPattern[];
}

/** An annotation a matcher made: its level, as the check run's annotation has it. */
export interface MatchedIssue {
  level: 'failure' | 'warning' | 'notice';
  message: string;
}

/**
 * The matchers actions/setup-node registers for the rest of its job (v7.0.0, `src/main.ts`:
 * `##[add-matcher]` of `.github/tsc.json`, `eslint-stylish.json`, `eslint-compact.json`).
 */
export const SETUP_NODE_MATCHERS: MatcherConfig[] = [
  {
    owner: 'tsc',
    pattern: [
      {
        regexp:
          '^([^\\s].*)[\\(:](\\d+)[,:](\\d+)(?:\\):\\s+|\\s+-\\s+)(error|warning|info)\\s+TS(\\d+)\\s*:\\s*(.*)$',
        file: 1,
        line: 2,
        column: 3,
        severity: 4,
        code: 5,
        message: 6,
      },
    ],
  },
  {
    owner: 'eslint-stylish',
    pattern: [
      { regexp: '^\\s*([^\\s].*)$', file: 1 },
      {
        regexp: '^\\s+(\\d+):(\\d+)\\s+(error|warning|info)\\s+(.*)\\s\\s+(.*)$',
        line: 1,
        column: 2,
        severity: 3,
        message: 4,
        code: 5,
        loop: true,
      },
    ],
  },
  {
    owner: 'eslint-compact',
    pattern: [
      {
        regexp:
          '^(.+):\\sline\\s(\\d+),\\scol\\s(\\d+),\\s([Ee]rror|[Ww]arning|[Ii]nfo)\\s-\\s(.+)\\s\\((.+)\\)$',
        file: 1,
        line: 2,
        column: 3,
        severity: 4,
        message: 5,
        code: 6,
      },
    ],
  },
];

/** What the patterns of one matcher took from the lines so far (IssueMatch). */
interface Match {
  severity?: string;
  message?: string;
}

class Matcher {
  readonly owner: string;
  private readonly patterns: Array<MatcherPattern & { re: RegExp }>;
  private state: Array<Match | undefined> = [];

  constructor(private readonly config: MatcherConfig) {
    this.owner = config.owner;
    this.patterns = config.pattern.map((p) => ({ ...p, re: new RegExp(p.regexp) }));
    this.reset();
  }

  reset(): void {
    this.state = new Array<Match | undefined>(this.patterns.length - 1).fill(undefined);
  }

  /** IssueMatcher.Match: one pattern, or several over consecutive lines, the last looping. */
  match(line: string): Match | undefined {
    const take = (p: MatcherPattern, groups: RegExpExecArray, running?: Match): Match => ({
      severity: running?.severity ?? (p.severity === undefined ? undefined : groups[p.severity]),
      message: running?.message ?? (p.message === undefined ? undefined : groups[p.message]),
    });
    if (this.patterns.length === 1) {
      const groups = this.patterns[0]!.re.exec(line);
      return groups ? this.withDefault(take(this.patterns[0]!, groups)) : undefined;
    }
    for (let i = this.patterns.length - 1; i >= 0; i--) {
      const running = i > 0 ? this.state[i - 1] : undefined;
      if (i > 0 && !running) continue;
      const pattern = this.patterns[i]!;
      const isLast = i === this.patterns.length - 1;
      const groups = pattern.re.exec(line);
      if (groups && isLast) {
        this.reset();
        if (pattern.loop) this.state[i - 1] = running;
        return this.withDefault(take(pattern, groups, running));
      }
      if (groups) this.state[i] = take(pattern, groups, running);
      else this.state[isLast ? i - 1 : i] = undefined;
    }
    return undefined;
  }

  private withDefault(match: Match): Match {
    return match.severity ? match : { ...match, severity: this.config.severity };
  }
}

// eslint-disable-next-line no-control-regex -- the runner's colour code starts with NUL
const COLOUR_CODE = /\x0033\[[0-9;]*m?/g;

/** The job's matchers: what `##[add-matcher]` registered, minus what `remove-matcher` took. */
export class ProblemMatchers {
  private matchers: Matcher[] = [];

  /** AddMatchers: the new ones first, replacing any of the same owner. */
  add(configs: readonly MatcherConfig[]): void {
    const owners = new Set(configs.map((c) => c.owner.toLowerCase()));
    this.matchers = [
      ...configs.map((c) => new Matcher(c)),
      ...this.matchers.filter((m) => !owners.has(m.owner.toLowerCase())),
    ];
  }

  /** The annotation a line makes, if a matcher takes it (OutputManager, ConvertToIssue). */
  read(line: string): MatchedIssue | undefined {
    const stripped = line.includes('\x0033[') ? line.replace(COLOUR_CODE, '') : line;
    for (const matcher of this.matchers) {
      const match = matcher.match(stripped);
      if (!match) continue;
      for (const other of this.matchers) if (other !== matcher) other.reset();
      const level = levelOf(match.severity);
      if (!match.message?.trim() || !level) continue;
      return { level, message: match.message };
    }
    return undefined;
  }
}

function levelOf(severity: string | undefined): MatchedIssue['level'] | undefined {
  const s = (severity ?? '').toLowerCase();
  if (s === '' || s === 'error') return 'failure';
  if (s === 'warning') return 'warning';
  if (s === 'notice') return 'notice';
  return undefined;
}
