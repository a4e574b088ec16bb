// @ts-check
// Simulates: a server whose tools/list pages do not end as MCP says. Its first argument
// names how: `null` and `empty` end the second page with a nextCursor of null or "" (how
// some servers say "no more"), `repeat` gives the second page's cursor again forever,
// `endless` a new cursor on every page (empty pages after the first) forever. It counts
// the pages asked for on stderr ("pages: N") every 1,000.
import { createInterface } from 'node:readline';

const mode = process.argv[2] ?? 'repeat';
let pages = 0;
const send = (/** @type {object} */ message) => process.stdout.write(`${JSON.stringify(message)}\n`);
const tool = (/** @type {string} */ name) => ({ name, inputSchema: { type: 'object' } });

/** @param {string | undefined} cursor */
function page(cursor) {
  if (cursor === undefined) return { tools: [tool('first')], nextCursor: 'second' };
  if (mode === 'endless') return { tools: [], nextCursor: `page ${pages}` };
  const last = { null: null, empty: '', repeat: 'second' }[mode];
  return { tools: [tool(mode === 'repeat' ? `again_${pages}` : 'second')], nextCursor: last };
}

createInterface({ input: process.stdin }).on('line', (line) => {
  const message = JSON.parse(line);
  if (message.id === undefined || message.method === undefined) return;
  if (message.method === 'initialize')
    return send({
      jsonrpc: '2.0',
      id: message.id,
      result: {
        protocolVersion: '2025-11-25',
        capabilities: { tools: {} },
        serverInfo: { name: 'bad-pages', version: '1' },
      },
    });
  if (message.method === 'tools/list') {
    if (++pages % 1000 === 0) process.stderr.write(`pages: ${pages}\n`);
    return send({ jsonrpc: '2.0', id: message.id, result: page(message.params?.cursor) });
  }
  send({ jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'Method not found' } });
});
