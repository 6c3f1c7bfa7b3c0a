import nock from 'nock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isAgentConfig } from '../../src/worker/agent-config.js';
import {
  isCoordinatorConfig,
  isGitComponent,
  isWorkflowFile,
} from '../../src/worker/protected-paths.js';
import { git } from './helpers/git-fixture.js';
import { strictGitHub } from './helpers/github-mock.js';
import { createHarness, type Harness } from './helpers/harness.js';

/**
 * Paths are refused or flagged as macOS and Windows would read them (src/worker/protected-paths.ts):
 * there a case variant, an invisible code point or a trailing dot names the same file.
 */

const ZWNJ = '\u200c';
const BRANCH = 'agent/7/task_001';

describe('protected paths, as a case-insensitive file system reads them', () => {
  it('workflow files, however cased or spelled', () => {
    for (const path of [
      '.github/workflows/ci.yml',
      '.GitHub/Workflows/ci.yml',
      '.GITHUB/WORKFLOWS/release.yaml',
      `.git${ZWNJ}hub/workflows/ci.yml`,
      '.github./workflows/ci.yml',
      '.github/workflows /ci.yml',
      // NTFS short names, which Windows resolves to the folders (as `git~1` is `.git`).
      'GITHUB~1/WORKFL~1/ci.yml',
      '.github/workfl~2/ci.yml',
      'github~1/workflows/ci.yml',
      // The form Windows gives once four names share their first six characters.
      '.github/WO1A2B~1/ci.yml',
    ])
      expect(isWorkflowFile(path), path).toBe(true);
    for (const path of [
      '.github/workflows',
      '.github/ci.yml',
      'docs/.github/workflows/ci.yml',
      'GITHUB~1/WORKFL~1',
      'GITHUB~1/WORK~1/ci.yml',
    ])
      expect(isWorkflowFile(path), path).toBe(false);
  });

  it("the coordinator's configuration, however cased or spelled, and only at its path", () => {
    for (const path of [
      '.github/agent-coordinator.yml',
      '.GitHub/Agent-Coordinator.YML',
      `.github/agent${ZWNJ}-coordinator.yml`,
      '.github/agent-coordinator.yml.',
      '.github/AGENT-~1.YML',
      'GITHUB~1/agent-coordinator.yml',
    ])
      expect(isCoordinatorConfig(path), path).toBe(true);
    for (const path of [
      'docs/.github/agent-coordinator.yml',
      '.github/agent-coordinator.yaml',
      '.github/agent-coordinator.yml/x',
      'agent-coordinator.yml',
      '.github/AGENT-~1.YAM',
    ])
      expect(isCoordinatorConfig(path), path).toBe(false);
  });

  it('.git, however cased or spelled', () => {
    for (const part of [
      '.git',
      '.GIT',
      '.Git',
      `.g${ZWNJ}it`,
      `.gi\u200dt`,
      `\ufeff.git`,
      '.git.',
      '.git ',
      'GIT~1',
    ])
      expect(isGitComponent(part), JSON.stringify(part)).toBe(true);
    for (const part of ['.github', 'git', '.gitignore', '..git', '.gi'])
      expect(isGitComponent(part), part).toBe(false);
  });

  it('agent configuration, however cased, and in any folder', () => {
    for (const path of [
      'CLAUDE.md',
      'CLAUDE.MD',
      'claude.md',
      '.Claude/settings.json',
      '.CLAUDE/hooks/x.sh',
      `.cl${ZWNJ}aude/settings.json`,
      'packages/api/CLAUDE.md',
      'packages/api/.claude/commands/deploy.md',
      'src/.claude/skills/x/SKILL.md',
      'docs/AGENTS.md',
      // Codex reads an AGENTS.override.md before the AGENTS.md beside it, project settings in
      // .codex/ and skills in .agents/skills/.
      'AGENTS.override.md',
      'lib/Agents.Override.md',
      '.codex/config.toml',
      'packages/api/.agents/skills/deploy/SKILL.md',
      'CLAUDE.local.md',
      'GEMINI.md',
      '.gemini/settings.json',
      '.cursor/rules/x.mdc',
      'web/.cursor/rules/y.mdc',
      '.cursorrules',
      '.mcp.json',
      '.MCP.json',
      '.claude.json',
      '.gitmodules',
      '.gitattributes',
      'assets/.GitAttributes',
      '.lfsconfig',
      '.husky/pre-commit',
      '.github/copilot-instructions.md',
      '.GitHub/Copilot-Instructions.md',
      '.github/instructions/ts.instructions.md',
      '.vscode/mcp.json',
    ])
      expect(isAgentConfig(path), path).toBe(true);
    for (const path of [
      'README.md',
      'docs/claude.md.txt',
      'src/agents.ts',
      'sub/.mcp.json',
      'sub/.gitmodules',
      'sub/.lfsconfig',
      '.github/workflows/ci.yml',
      '.vscode/settings.json',
    ])
      expect(isAgentConfig(path), path).toBe(false);
  });
});

strictGitHub();

describe('the publish job refuses, whatever the spelling', () => {
  let h: Harness;
  beforeEach(() => {
    h = createHarness(BRANCH);
  });
  afterEach(() => h.fx.cleanup());

  it('a workflow file under .GitHub/Workflows/: workflow_files_changed, nothing pushed', async () => {
    const before = h.fx.originRev(BRANCH);
    const result = await h.run({
      FAKE_AGENT: 'files',
      FAKE_AGENT_FILES: JSON.stringify({
        '.GitHub/Workflows/release.yml': 'on: push\n',
        'feature.txt': 'x\n',
      }),
    });
    expect(result.outcome).toMatchObject({ ok: false, reason: 'workflow_files_changed' });
    expect(result.outcome.ok || result.outcome.detail).toContain('.GitHub/Workflows/release.yml');
    expect(h.fx.originRev(BRANCH)).toBe(before);
  });

  it.each(['.github/agent-coordinator.yml', '.GitHub/Agent-Coordinator.YML'])(
    "the coordinator's configuration (%s): coordinator_config_changed, nothing pushed",
    async (path) => {
      const before = h.fx.originRev(BRANCH);
      // A prompt-injected agent loosening every later run once a reviewer merges its PR.
      const result = await h.run({
        FAKE_AGENT: 'files',
        FAKE_AGENT_FILES: JSON.stringify({
          [path]: 'merge:\n  requireApproval: false\n',
          'feature.txt': 'x\n',
        }),
      });
      expect(result.outcome).toMatchObject({ ok: false, reason: 'coordinator_config_changed' });
      expect(result.outcome.ok || result.outcome.detail).toContain(path);
      expect(h.fx.originRev(BRANCH)).toBe(before);
    },
  );

  it.each([
    { path: 'GITHUB~1/WORKFL~1/release.yml', reason: 'workflow_files_changed' },
    { path: '.github/AGENT-~1.YML', reason: 'coordinator_config_changed' },
  ])(
    '$path, as Windows reads its short names: $reason, nothing pushed',
    async ({ path, reason }) => {
      const before = h.fx.originRev(BRANCH);
      // On a person's Windows checkout the file lands in `.github/` and is committed from there.
      const result = await h.run({
        FAKE_AGENT: 'files',
        FAKE_AGENT_FILES: JSON.stringify({ [path]: 'on: push\n', 'feature.txt': 'x\n' }),
      });
      expect(result.outcome).toMatchObject({ ok: false, reason });
      expect(result.outcome.ok || result.outcome.detail).toContain(path);
      expect(h.fx.originRev(BRANCH)).toBe(before);
    },
  );

  it('a path macOS reads as .git (an invisible code point): bad_result, nothing pushed', async () => {
    const before = h.fx.originRev(BRANCH);
    const result = await h.run({
      FAKE_AGENT: 'files',
      FAKE_AGENT_FILES: JSON.stringify({
        [`.g${ZWNJ}it/hooks/post-checkout`]: '#!/bin/sh\necho pwned\n',
        'feature.txt': 'x\n',
      }),
    });
    expect(result.outcome).toMatchObject({ ok: false, reason: 'bad_result' });
    expect(result.outcome.ok || result.outcome.detail).toMatch(/invalid path/);
    expect(h.fx.originRev(BRANCH)).toBe(before);
    expect(git(h.fx.origin, 'ls-tree', '-r', '--name-only', BRANCH)).not.toContain('hooks');
    expect(nock.pendingMocks()).toEqual([]);
  });
});
