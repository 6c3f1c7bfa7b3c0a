import type { IncomingHttpHeaders } from 'node:http';

/**
 * While the agent's network is closed (docs/worker.md, "The agent's network"), the API-key proxy
 * is the one way out the agent has to a server of the internet, and the API can fetch what a
 * request names, from its own servers: the web fetch tool (`web_fetch_…` server tools), the MCP
 * connector (`mcp_servers`, with `mcp_toolset` tools), an image or document given by URL
 * (`"source": {"type": "url"}`), and whatever the API's other endpoints start (Managed Agents'
 * sessions run in environments with a network of their own). A URL the API fetches carries
 * whatever the agent put in it. So the proxy forwards, then, only what Claude Code needs of the
 * API: GET and HEAD without a body, and POST to the Messages API whose body asks for no fetch.
 * Names from Anthropic's API reference (the SDK's BetaWebFetchTool20250910…20260318,
 * BetaRequestMCPServerURLDefinition, BetaMCPToolset, BetaURLImageSource, BetaURLPDFSource).
 */

/** The Messages API's paths under the upstream's: the only ones a request with a body may take. */
const MESSAGES_PATHS = new Set(['/v1/messages', '/v1/messages/count_tokens']);

/** The Messages API's own limit on a request (32 MB): a larger body is read no further. */
export const MAX_CHECKED_BODY = 32 * 1024 * 1024;

/**
 * Why a request is refused before its body is read, or undefined. `path` is the request's path
 * under the upstream's, as it will be sent (its spelling exact: `/v1/%6Dessages` is not the
 * Messages API here, whatever a server makes of it).
 */
export function closedNetworkRefusal(
  method: string | undefined,
  path: string,
  headers: IncomingHttpHeaders,
): string | undefined {
  const body =
    headers['transfer-encoding'] !== undefined ||
    (headers['content-length'] !== undefined && headers['content-length'] !== '0');
  if ((method === 'GET' || method === 'HEAD') && !body) return undefined;
  if (method === 'POST' && MESSAGES_PATHS.has(path)) {
    const coding = headers['content-encoding'];
    if (coding === undefined || coding === 'identity') return undefined;
    return `agent-coordinator: the agent's network is closed, and the worker reads each Messages request before it goes: send it without content-encoding (${coding})`;
  }
  return `agent-coordinator: the agent's network is closed: the worker forwards only GET and HEAD, and POST to /v1/messages and /v1/messages/count_tokens (not ${method} ${path})`;
}

/**
 * Why a Messages request's body is refused, or undefined. Every object in the body is looked at,
 * wherever it is nested (a tool, a message's content block, a tool result's), without recursion:
 * the agent chooses the depth.
 */
export function fetchingRequest(body: unknown): string | undefined {
  const stack: unknown[] = [body];
  while (stack.length > 0) {
    const value = stack.pop();
    if (Array.isArray(value)) {
      for (const item of value as unknown[]) stack.push(item);
      continue;
    }
    if (typeof value !== 'object' || value === null) continue;
    const fields = value as Record<string, unknown>;
    const type = fields['type'];
    if (typeof type === 'string') {
      if (type.startsWith('web_fetch'))
        return `${type}: the API would fetch URLs the agent chooses (the web fetch tool)`;
      if (type === 'mcp_toolset')
        return 'mcp_toolset: the API would call MCP servers the agent chooses (the MCP connector)';
      if (type === 'url')
        return 'a source of type url: the API would fetch the URL the agent chose (an image or a document by URL)';
    }
    const servers = fields['mcp_servers'];
    if (servers !== undefined && servers !== null && !(Array.isArray(servers) && !servers.length))
      return 'mcp_servers: the API would call MCP servers the agent chooses (the MCP connector)';
    for (const item of Object.values(fields)) stack.push(item);
  }
  return undefined;
}
