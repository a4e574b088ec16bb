#!/usr/bin/env node
// @ts-check
// A stdio MCP server with no SDK: it answers initialize, ping, tools/list (one tool, echo)
// and echo calls, one write per chunk read. Its own cost per call is as small as a server's
// can be, so what a proxy in front of it costs shows clearly (bench/proxy-cpu.js).
let pending = '';
process.stdin.setEncoding('utf8').on('data', (/** @type {string} */ chunk) => {
  const lines = (pending + chunk).split('\n');
  pending = lines.pop() ?? '';
  let out = '';
  for (const line of lines) {
    if (!line) continue;
    const message = JSON.parse(line);
    if (message.id === undefined) continue;
    const result = answer(message);
    out +=
      JSON.stringify(
        result
          ? { result, jsonrpc: '2.0', id: message.id }
          : { jsonrpc: '2.0', id: message.id, error: { code: -32601, message: `no ${message.method}` } },
      ) + '\n';
  }
  if (out) process.stdout.write(out);
});
process.stdin.on('end', () => process.exit(0));

/** @param {{method: string, params?: any}} message */
function answer({ method, params }) {
  if (method === 'initialize')
    return {
      protocolVersion: params.protocolVersion,
      capabilities: { tools: {} },
      serverInfo: { name: 'raw-echo', version: '1.0.0' },
    };
  if (method === 'ping') return {};
  if (method === 'tools/list')
    return {
      tools: [
        {
          name: 'echo',
          description: 'Echoes the message back',
          inputSchema: { type: 'object', properties: { message: { type: 'string' } } },
        },
      ],
    };
  if (method === 'tools/call')
    return { content: [{ type: 'text', text: `Echo: ${params.arguments.message}` }] };
  return undefined;
}
