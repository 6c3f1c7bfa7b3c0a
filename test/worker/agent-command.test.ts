import { describe, expect, it } from 'vitest';
import { agentArgv, agentEnv, agentLaunch } from '../../src/worker/agent.js';

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
        INPUT_COORDINATOR_URL: 'https://c.example',
        CI: 'true',
      },
      '/tmp/p/prompt.md',
    );
    expect(env).toEqual({
      PATH: '/bin',
      ANTHROPIC_API_KEY: 'sk-ant',
      CI: 'true',
      AC_PROMPT_FILE: '/tmp/p/prompt.md',
    });
  });

  // Claude Code 2.1.x exits with "--dangerously-skip-permissions cannot be used with
  // root/sudo privileges" when getuid() is 0 and IS_SANDBOX is not "1".
  it('tells Claude Code it runs in a sandbox when the job runs as root, and only then', () => {
    const asRoot = agentLaunch({}, 0);
    expect(asRoot.argv).toContain('bypassPermissions');
    expect(asRoot.env).toEqual({ IS_SANDBOX: '1' });
    expect(asRoot.note).toMatch(/root/);
    expect(agentLaunch({}, 1001)).toEqual({ argv: agentArgv({}), env: {} });
    // Another agent is the repository's own business.
    expect(agentLaunch({ agentCommand: 'aider' }, 0).env).toEqual({});
  });
});
