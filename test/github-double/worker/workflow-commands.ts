import type { JobAnnotation } from '../model.js';
import { ProblemMatchers, type MatcherConfig } from './problem-matchers.js';

// What the Actions runner does with the lines a step prints ("Workflow commands for GitHub
// Actions"): `::error::`, `::warning::` and `::notice::` become annotations of the job's check
// run, `::add-mask::` hides a value in the log and in later annotations from then on, and
// between `::stop-commands::T` and `::T::` nothing is a command. Data is unescaped as
// @actions/core escapes it.
//
// The runner also reads a command in its legacy form, `##[name props]data`, anywhere in a line
// (actions/runner `ActionCommandManager.TryProcessCommand` tries `ActionCommand.TryParseV2`, the
// `::` form at the line's start, then `TryParse`, which finds `##[` at any index), and keeps at
// most 10 annotations of each kind a step and 50 a job (actions/toolkit
// docs/problem-matchers.md, "Limitations"): the rest are dropped. A line that is no command it
// carried out (commands stopped or not) goes on to the job's problem matchers
// (./problem-matchers.ts), and the first that takes it makes an annotation, counted alike.

const LEVELS = { error: 'failure', warning: 'warning', notice: 'notice' } as const;
const PER_STEP = 10;
const PER_JOB = 50;

const unescapeData = (s: string) =>
  s.replace(/%0D/gi, '\r').replace(/%0A/gi, '\n').replace(/%25/g, '%');

/** A step's standard output or error: two pipes, which the runner reads apart. */
export type Stream = 'stdout' | 'stderr';

interface Command {
  name: string;
  data: string;
}

export class WorkflowCommands {
  readonly annotations: JobAnnotation[] = [];
  private readonly masks: string[] = [];
  private stopToken: string | undefined;
  private readonly partial = { stdout: '', stderr: '' };
  private stepCounts = new Map<string, number>();
  private readonly matchers = new ProblemMatchers();

  /** `##[add-matcher]`: a step registers these for the rest of the job. */
  addMatchers(configs: readonly MatcherConfig[]): void {
    this.matchers.add(configs);
  }

  /** A new step: the per-step limits count afresh. */
  startStep(): void {
    this.stepCounts = new Map();
  }

  /**
   * A chunk of one of a step's two output streams; answers what the log shows of its complete
   * lines. The runner reads each stream into lines of its own.
   */
  feed(text: string, stream: Stream = 'stdout'): string {
    // The runner reads lines as .NET's TextReader.ReadLine does: CR, LF or CRLF ends one.
    const lines = (this.partial[stream] + text).split(/\r\n|\n|\r(?=[\s\S])/);
    this.partial[stream] = lines.pop() ?? '';
    return lines.map((line) => this.line(line)).join('');
  }

  /** The stream ended: its last line, even without a newline, is a line. */
  flush(stream: Stream = 'stdout'): string {
    const rest = this.partial[stream].replace(/\r$/, '');
    this.partial[stream] = '';
    return rest === '' ? '' : this.line(rest);
  }

  private line(raw: string): string {
    const carried = this.command(raw);
    if (carried === 'hidden') return '';
    if (carried === undefined) {
      const issue = this.matchers.read(raw);
      if (issue) this.annotate(issue.level, issue.message);
    }
    return this.mask(raw);
  }

  /**
   * The command the line is, if the runner carries it out (then no matcher reads the line):
   * `hidden` from the log, or `shown` there, as an annotation's line is.
   */
  private command(raw: string): 'hidden' | 'shown' | undefined {
    const command = parseCommand(raw);
    if (this.stopToken !== undefined) {
      if (command?.name !== this.stopToken) return undefined;
      this.stopToken = undefined;
      return 'hidden';
    }
    if (!command) return undefined;
    const { name, data } = command;
    if (name === 'add-mask') {
      if (data.trim()) this.masks.push(unescapeData(data.trim()));
      return 'hidden';
    }
    if (name === 'stop-commands') {
      this.stopToken = data;
      return 'hidden';
    }
    if (!(name in LEVELS)) return undefined;
    this.annotate(LEVELS[name as keyof typeof LEVELS], unescapeData(data));
    return 'shown';
  }

  private annotate(level: JobAnnotation['annotation_level'], message: string): void {
    const inStep = this.stepCounts.get(level) ?? 0;
    this.stepCounts.set(level, inStep + 1);
    if (inStep >= PER_STEP || this.annotations.length >= PER_JOB) return;
    this.annotations.push({ message: this.hide(message), annotation_level: level });
  }

  private hide(text: string): string {
    let out = text;
    for (const value of this.masks) out = out.split(value).join('***');
    return out;
  }

  private mask(line: string): string {
    return `${this.hide(line)}\n`;
  }
}

/** A command in the `::name props::data` form at the line's start, or `##[name props]data` anywhere. */
function parseCommand(line: string): Command | undefined {
  const modern = /^::([^\s:]+)( [^:]*)?::(.*)$/s.exec(line.trimStart());
  if (modern) return { name: modern[1]!, data: modern[3] ?? '' };
  const legacy = /##\[([^\s\]]+)(?: [^\]]*)?\](.*)$/s.exec(line);
  if (legacy) return { name: legacy[1]!, data: legacy[2] ?? '' };
  return undefined;
}
