import type { CliIo } from './io.js';
import { runDoctor } from './doctor.js';
import { runInit } from './init.js';

export type { CliIo } from './io.js';

interface Command {
  usage: string;
  summary: string;
  run(args: string[], io: CliIo): Promise<number>;
}

// One entry per subcommand.
const COMMANDS: Record<string, Command> = {
  init: {
    usage: 'init [dir] [--force]',
    summary: 'write .github/workflows/agent-worker.yml and .github/agent-coordinator.yml',
    run: runInit,
  },
  doctor: {
    usage: 'doctor --repo owner/name',
    summary: "check a repository's setup with the App's credentials and print what to fix",
    run: runDoctor,
  },
  help: {
    usage: 'help',
    summary: 'show this help',
    async run(_args, io) {
      io.out(helpText());
      return 0;
    },
  },
};

export function helpText(): string {
  const width = Math.max(...Object.values(COMMANDS).map((c) => c.usage.length));
  const lines = Object.values(COMMANDS).map((c) => `  ${c.usage.padEnd(width)}  ${c.summary}`);
  return `usage: agent-coordinator <command>\n\ncommands:\n${lines.join('\n')}\n`;
}

/** The `agent-coordinator` command; returns the exit code. */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const [name, ...args] = argv;
  if (name === undefined || name === '--help' || name === '-h') {
    io.out(helpText());
    return name === undefined ? 2 : 0;
  }
  const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!command) {
    io.err(`agent-coordinator: unknown command ${JSON.stringify(name)}\n\n${helpText()}`);
    return 2;
  }
  return command.run(args, io);
}
