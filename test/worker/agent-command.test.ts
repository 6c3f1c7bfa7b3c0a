import { describe, expect, it } from 'vitest';
import { agentArgv, agentEnv } from '../../src/worker/agent.js';

describe('agent command', () => {
  it('defaults to Claude Code headless with the model and turn limit', () => {
    expect(agentArgv({ model: 'claude-sonnet-4-5', maxTurns: 30 })).toEqual([
      'claude',
      '-p',
      '--output-format',
      'json',
      '--permission-mode',
      'bypassPermissions',
      '--model',
      'claude-sonnet-4-5',
      '--max-turns',
      '30',
    ]);
    expect(agentArgv({})).not.toContain('--model');
  });

  it('lets AGENT_COMMAND replace it, split into argv', () => {
    expect(
      agentArgv({ agentCommand: `aider --yes --message-file "$AC_PROMPT_FILE"`, model: 'x' }),
    ).toEqual(['aider', '--yes', '--message-file', '$AC_PROMPT_FILE']);
    expect(() => agentArgv({ agentCommand: '   ' })).toThrow(/no command/);
  });

  it('passes the environment on without credentials or job files', () => {
    const env = agentEnv(
      {
        PATH: '/bin',
        ANTHROPIC_API_KEY: 'sk-ant',
        GH_TOKEN: 't',
        GITHUB_TOKEN: 't',
        GITHUB_OUTPUT: '/x',
        ACTIONS_ID_TOKEN_REQUEST_TOKEN: 'oidc',
        GIT_CONFIG_COUNT: '1',
        GIT_CONFIG_KEY_0: 'http.extraheader',
        AC_TASK_ID: 'task_001',
      },
      '/tmp/p/prompt.md',
    );
    expect(env).toEqual({
      PATH: '/bin',
      ANTHROPIC_API_KEY: 'sk-ant',
      AC_TASK_ID: 'task_001',
      AC_PROMPT_FILE: '/tmp/p/prompt.md',
    });
  });
});
