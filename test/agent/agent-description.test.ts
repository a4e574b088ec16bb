// The agent tool's description: the servers it reaches, with their tool counts and most
// telling tool names (those whose words are rarest across every reachable tool).
import t from 'tap';
import { DESCRIPTION_BUDGET, agentDescription } from '../../src/agent/agent-description.js';

const tool = (name: string, description = `does ${name}`) => ({
  name,
  description,
  inputSchema: { type: 'object' as const },
});

const memory = {
  name: 'memory',
  tools: ['create_entities', 'read_graph', 'search_nodes'].map((n) => tool(n)),
};
const files = {
  name: 'fs',
  tools: ['read_file', 'write_file', 'list_directory', 'search_files', 'move_file', 'get_file_info'].map(
    (n) => tool(n),
  ),
  about: { instructions: 'Reads and writes files under /work. Paths are absolute.' },
};

t.test('names each server with its count, its telling tools and what it says it is for', async (t) => {
  const text = agentDescription([memory, files]);
  t.match(text, /^Delegate a task to a sub-agent/);
  t.match(
    text,
    /\n- memory \(3 tools: create_entities, read_graph, search_nodes\)\n/,
    'a small server shows all',
  );
  // "file" is in four names and "read" in two: read_file tells least, and is the one left out.
  t.match(
    text,
    /\n- fs \(6 tools: write_file, list_directory, search_files, move_file, get_file_info, …\): Reads and writes files under \/work\.$/,
  );
  t.match(agentDescription([]), /No server is running yet: start one with add_server first\./);
});

t.test('the text follows the tools: a server that grows or goes shows so', async (t) => {
  t.match(
    agentDescription([{ ...memory, tools: [...memory.tools, tool('open_nodes')] }]),
    /memory \(4 tools/,
  );
  t.notMatch(agentDescription([files]), /memory/);
  t.match(agentDescription([memory]), /memory \(3 tools/, 'and back again');
});

t.test(
  'many servers: the text keeps within its budget, naming as many as fit and how many more',
  async (t) => {
    const many = Array.from({ length: 70 }, (_, i) => ({
      name: `server${i}`,
      tools: Array.from({ length: 12 }, (_, j) => tool(`action_${i}_${j}`, 'x'.repeat(80))),
      about: { instructions: 'A server with a long purpose sentence that explains everything it can do.' },
    }));
    const text = agentDescription(many);
    t.ok(text.length <= DESCRIPTION_BUDGET, `${text.length} characters`);
    t.match(
      text,
      /Servers it can reach \(list_servers and search_tools tell what each does\): server0 \(12\), server1 \(12\)/,
    );
    const shown = [...text.matchAll(/server\d+ \(12\)/g)].length;
    t.match(text, new RegExp(`, and ${70 - shown} more$`), 'the rest counted');
    const ten = agentDescription(many.slice(0, 10));
    t.ok(ten.length <= DESCRIPTION_BUDGET);
    t.match(ten, /server9 \(12\)$/, 'ten fit with their counts');
  },
);
