// The agent tool's description: what it does, and which servers its sub-agent can reach and
// what they are for (name, tool count, its most telling tool names). A client reads this to
// decide whether to delegate, so it changes with the servers; it is rebuilt only when their
// tool definitions change (keyed by a hash of them). It is listed in every mode, so it keeps
// within DESCRIPTION_BUDGET whatever the number of servers: the rest is one list_servers away.
import { createHash } from 'node:crypto';
import type { Tool } from '@modelcontextprotocol/server';
import { serverPurpose } from '../search/server-purpose.js';
import { nameWords } from '../search/tool-ranker.js';

export interface ReachableServer {
  name: string;
  tools: readonly Tool[];
  /** The server's own one-line summary (its instructions' first sentence or its title). */
  about?: { title?: string | undefined; instructions?: string | undefined } | undefined;
}

const LEAD =
  'Delegate a task to a sub-agent that does it with the tools of the servers behind mcpmux and returns its final answer ' +
  '(on your own model through sampling, or the configured API). Give the whole task in prompt, with what the answer ' +
  'must contain. Long work: run_in_background, then output. resume: continue an earlier agent.';

/** Tool names shown per server. */
const SHOWN = 5;

/** Characters the whole description may take (1 KB: at 70 servers, naming each with its tools took 8). */
export const DESCRIPTION_BUDGET = 1000;

/** The same where the listed surface is the whole context cost (search, code and agent mode). */
export const COMPACT_DESCRIPTION_BUDGET = 600;

let cached: { key: string; text: string } | undefined;

export function agentDescription(
  servers: readonly ReachableServer[],
  budget: number = DESCRIPTION_BUDGET,
): string {
  const key = createHash('sha256')
    .update(
      JSON.stringify([
        budget,
        ...servers.map((s) => [
          s.name,
          s.about?.title,
          s.about?.instructions,
          s.tools.map((t) => [t.name, t.description]),
        ]),
      ]),
    )
    .digest('base64');
  if (cached?.key === key) return cached.text;
  const text =
    servers.length === 0
      ? `${LEAD}\nNo server is running yet: start one with add_server first.`
      : withinBudget(servers, budget);
  cached = { key, text };
  return text;
}

/**
 * The servers as fully as the budget allows: each with its telling tools and purpose; else
 * each with its tool count; else as many of those as fit, and how many more there are.
 */
function withinBudget(servers: readonly ReachableServer[], budget: number): string {
  const full = `${LEAD}\nServers it can reach:\n${servers.map((s) => `- ${serverLine(s, telling(s.tools, servers))}`).join('\n')}`;
  if (full.length <= budget) return full;
  const head = `${LEAD}\nServers it can reach (list_servers and search_tools tell what each does): `;
  const counted = servers.map((s) => `${s.name} (${s.tools.length})`);
  const all = head + counted.join(', ');
  if (all.length <= budget) return all;
  const shown: string[] = [];
  let length = head.length;
  for (const [i, item] of counted.entries()) {
    const more = `, and ${servers.length - i - 1} more`;
    if (length + item.length + 2 + more.length > budget) break;
    shown.push(item);
    length += item.length + 2;
  }
  return `${head}${shown.join(', ')}, and ${servers.length - shown.length} more`;
}

function serverLine(server: ReachableServer, names: string[]): string {
  const said = serverPurpose(server.about);
  const more = server.tools.length > names.length ? ', …' : '';
  return `${server.name} (${server.tools.length} tool${server.tools.length === 1 ? '' : 's'}: ${names.join(', ')}${more})${said ? `: ${said}` : ''}`;
}

/**
 * The names that say most about what a server does: those whose words are rarest across
 * every reachable tool ("create_entities" tells more than "list" or "get"), in the server's order.
 */
function telling(tools: readonly Tool[], servers: readonly ReachableServer[]): string[] {
  if (tools.length <= SHOWN) return tools.map((t) => t.name);
  const frequency = new Map<string, number>();
  for (const server of servers)
    for (const tool of server.tools)
      for (const word of new Set(nameWords(tool.name))) frequency.set(word, (frequency.get(word) ?? 0) + 1);
  const rarity = (tool: Tool) => {
    const words = nameWords(tool.name);
    return words.reduce((sum, word) => sum + 1 / (frequency.get(word) ?? 1), 0) / Math.max(1, words.length);
  };
  const chosen = new Set(
    [...tools]
      .map((tool, i) => ({ tool, i, score: rarity(tool) }))
      .sort((a, b) => b.score - a.score || a.i - b.i)
      .slice(0, SHOWN)
      .map((x) => x.tool),
  );
  return tools.filter((t) => chosen.has(t)).map((t) => t.name);
}
