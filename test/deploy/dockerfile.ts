/**
 * The instructions of a Dockerfile, as the image test reads them to follow the real file
 * (Dockerfile reference: line continuations with `\`, `#` comments, one stage per `FROM`).
 * Only what the test reproduces is parsed further: `COPY`'s flags and paths, `ENV`'s
 * `key=value` pairs and the exec form of `CMD`.
 */
export interface Instruction {
  keyword: string;
  args: string;
}

export interface Stage {
  /** `FROM <image> AS <name>`'s name. */
  name?: string;
  image: string;
  instructions: Instruction[];
}

export function parseDockerfile(text: string): Stage[] {
  const logical: string[] = [];
  let pending = '';
  for (const raw of text.split('\n')) {
    const line = raw.trimEnd();
    // Comments (parser directives such as `# syntax=` included) are whole lines.
    if (pending === '' && /^\s*#/.test(line)) continue;
    if (line.endsWith('\\')) {
      pending += `${line.slice(0, -1)} `;
      continue;
    }
    const whole = (pending + line).trim();
    pending = '';
    if (whole !== '') logical.push(whole);
  }
  if (pending.trim() !== '') throw new Error('Dockerfile: ends inside a line continuation');

  const stages: Stage[] = [];
  for (const line of logical) {
    const match = /^(\w+)\s+(.*)$/.exec(line);
    if (!match) throw new Error(`Dockerfile: cannot read ${JSON.stringify(line)}`);
    const keyword = match[1]!.toUpperCase();
    const args = match[2]!.trim();
    if (keyword === 'FROM') {
      const from = /^(?:--\S+\s+)*(\S+)(?:\s+AS\s+(\S+))?$/i.exec(args);
      if (!from) throw new Error(`Dockerfile: cannot read FROM ${args}`);
      stages.push({ image: from[1]!, name: from[2], instructions: [] });
      continue;
    }
    const stage = stages.at(-1);
    if (!stage) throw new Error(`Dockerfile: ${keyword} before the first FROM`);
    stage.instructions.push({ keyword, args });
  }
  return stages;
}

export interface Copy {
  /** `--from=<stage>`; undefined copies from the build context. */
  from?: string;
  sources: string[];
  destination: string;
}

export function parseCopy(args: string): Copy {
  const words = args.split(/\s+/);
  let from: string | undefined;
  while (words[0]?.startsWith('--')) {
    const flag = words.shift()!;
    const fromFlag = /^--from=(.+)$/.exec(flag);
    if (!fromFlag) throw new Error(`Dockerfile: the image test does not reproduce COPY ${flag}`);
    from = fromFlag[1];
  }
  if (words.length < 2 || args.startsWith('['))
    throw new Error(`Dockerfile: cannot read COPY ${args}`);
  return { from, sources: words.slice(0, -1), destination: words.at(-1)! };
}

/** `ENV key=value …`, values unquoted; the legacy `ENV key value` form too. */
export function parseEnvInstruction(args: string): Record<string, string> {
  if (!/^[\w.-]+=/.test(args)) {
    const [key, ...value] = args.split(/\s+/);
    return { [key!]: value.join(' ') };
  }
  const env: Record<string, string> = {};
  for (const pair of args.matchAll(/([\w.-]+)=("(?:[^"\\]|\\.)*"|\S*)/g)) {
    const value = pair[2]!;
    env[pair[1]!] = value.startsWith('"') ? (JSON.parse(value) as string) : value;
  }
  return env;
}

/** `CMD ["node", "…"]`; the shell form is refused, since the image should not need a shell. */
export function parseExecForm(keyword: string, args: string): string[] {
  const parsed: unknown = args.startsWith('[') ? JSON.parse(args) : undefined;
  if (!Array.isArray(parsed) || !parsed.every((word) => typeof word === 'string'))
    throw new Error(`Dockerfile: expected the exec form of ${keyword}, got ${args}`);
  return parsed;
}
