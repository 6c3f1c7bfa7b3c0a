import type { JobAnnotation } from '../model.js';

// What the Actions runner does with the lines a step prints ("Workflow commands for GitHub
// Actions"): `::error::`, `::warning::` and `::notice::` become annotations of the job's check
// run, `::add-mask::` hides a value in the log from then on, and between `::stop-commands::T`
// and `::T::` nothing is a command. Data is unescaped as @actions/core escapes it.

const LEVELS = { error: 'failure', warning: 'warning', notice: 'notice' } as const;

const unescapeData = (s: string) =>
  s.replace(/%0D/gi, '\r').replace(/%0A/gi, '\n').replace(/%25/g, '%');

export class WorkflowCommands {
  readonly annotations: JobAnnotation[] = [];
  private readonly masks: string[] = [];
  private stopToken: string | undefined;
  private partial = '';

  /** A chunk of a step's output; answers what the log shows of its complete lines. */
  feed(text: string): string {
    const lines = (this.partial + text).split('\n');
    this.partial = lines.pop() ?? '';
    return lines.map((line) => this.line(line)).join('');
  }

  /** The step ended: its last line, even without a newline, is a line. */
  flush(): string {
    const rest = this.partial;
    this.partial = '';
    return rest === '' ? '' : this.line(rest);
  }

  private line(raw: string): string {
    const line = raw.replace(/\r$/, '').trimStart();
    const command = /^::([a-z-]+)( [^:]*)?::(.*)$/s.exec(line);
    if (this.stopToken !== undefined) {
      if (line === `::${this.stopToken}::`) {
        this.stopToken = undefined;
        return '';
      }
      return this.mask(raw);
    }
    if (command) {
      const [, name, , data = ''] = command;
      if (name === 'add-mask') {
        if (data.trim()) this.masks.push(unescapeData(data.trim()));
        return '';
      }
      if (name === 'stop-commands') {
        this.stopToken = data;
        return '';
      }
      if (name && name in LEVELS) {
        this.annotations.push({
          message: this.hide(unescapeData(data)),
          annotation_level: LEVELS[name as keyof typeof LEVELS],
        });
      }
    }
    return this.mask(raw);
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
