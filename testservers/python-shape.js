#!/usr/bin/env node
// @ts-check
// Simulates: a server on MCP's Python SDK as it writes to the wire. Pydantic serializes a
// response's fields in their declared order, `{"jsonrpc":"2.0","id":…,"result":…}` (the
// TypeScript SDK writes `{"result":…,"jsonrpc":"2.0","id":…}`), compact, with no SDK here to
// reorder them. Tools: `echo {message}`, `lines {count}` (numbered lines, for a result large
// enough to be cut), `fail` (a JSON-RPC error, as an unknown tool gets from FastMCP) and
// `request_id` (the call's JSON-RPC id as the server saw it).
let pending = '';
process.stdin.setEncoding('utf8').on('data', (/** @type {string} */ chunk) => {
  const lines = (pending + chunk).split('\n');
  pending = lines.pop() ?? '';
  for (const line of lines) {
    if (!line.trim()) continue;
    const message = JSON.parse(line);
    if (message.id === undefined || message.method === undefined) continue;
    const answer = respond(message);
    process.stdout.write(
      JSON.stringify(
        'error' in answer
          ? { jsonrpc: '2.0', id: message.id, error: answer.error }
          : { jsonrpc: '2.0', id: message.id, result: answer.result },
      ) + '\n',
    );
  }
});
process.stdin.on('end', () => process.exit(0));

const TOOLS = [
  { name: 'echo', description: 'Echoes the message back', props: { message: { type: 'string' } } },
  { name: 'lines', description: 'Numbered lines of text', props: { count: { type: 'integer' } } },
  { name: 'fail', description: 'Answers with a JSON-RPC error', props: {} },
  { name: 'request_id', description: "The call's JSON-RPC id", props: {} },
];

/** @param {{id: string | number, method: string, params?: any}} message */
function respond({ id, method, params }) {
  if (method === 'initialize')
    return {
      result: {
        protocolVersion: params.protocolVersion,
        capabilities: { tools: { listChanged: false } },
        serverInfo: { name: 'python-shape', version: '1.0.0' },
      },
    };
  if (method === 'ping') return { result: {} };
  if (method === 'tools/list')
    return {
      result: {
        tools: TOOLS.map(({ name, description, props }) => ({
          name,
          description,
          inputSchema: { type: 'object', properties: props },
        })),
      },
    };
  if (method === 'tools/call') {
    const args = params.arguments ?? {};
    const text = (/** @type {string} */ t) => ({
      result: { content: [{ type: 'text', text: t }], isError: false },
    });
    if (params.name === 'echo') return text(String(args.message));
    if (params.name === 'lines')
      return text(Array.from({ length: args.count }, (_, i) => `line ${i + 1} of the text`).join('\n'));
    if (params.name === 'request_id') return text(String(id));
    return { error: { code: -32602, message: `Unknown tool: ${params.name}` } };
  }
  return { error: { code: -32601, message: 'Method not found' } };
}
