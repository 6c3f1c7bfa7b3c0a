-- The agent configuration files (.claude/, .mcp.json, CLAUDE.md, AGENTS.md) an agent PR changes,
-- from its body's agent-config marker: the status comment warns about them (docs/worker.md).
ALTER TABLE "pull_requests" ADD COLUMN "agent_config_changed" jsonb DEFAULT '[]'::jsonb NOT NULL;
