// @ts-check
// Simulates: a server that sends JSON nested deeper than JSON.stringify can recurse (10,000
// levels, 20 KB). `deep` logs such a value, then answers with one in its structuredContent;
// `ok` answers plainly. A raw server: no SDK would build such values for it.
import { createInterface } from 'node:readline';

const DEPTH = 10_000;
const deep = '['.repeat(DEPTH) + ']'.repeat(DEPTH);
const send = (/** @type {string} */ line) => process.stdout.write(`${line}\n`);
const answer = (/** @type {unknown} */ id, /** @type {object} */ result) =>
  send(JSON.stringify({ jsonrpc: '2.0', id, result }));
createInterface({ input: process.stdin }).on('line', (line) => {
  const message = JSON.parse(line);
  if (message.id === undefined || message.method === undefined) return;
  const { id, method, params } = message;
  if (method === 'initialize')
    return answer(id, {
      protocolVersion: '2025-11-25',
      capabilities: { tools: {}, logging: {} },
      serverInfo: { name: 'deep-json', version: '1' },
    });
  if (method === 'tools/list')
    return answer(id, {
      tools: ['deep', 'ok'].map((name) => ({ name, inputSchema: { type: 'object' } })),
    });
  if (method === 'tools/call' && params.name === 'deep') {
    send(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":${deep}}}`);
    return send(
      `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"content":[{"type":"text","text":"deep"}],"structuredContent":{"value":${deep}}}}`,
    );
  }
  if (method === 'tools/call') return answer(id, { content: [{ type: 'text', text: 'ok' }] });
  if (method === 'logging/setLevel') return answer(id, {});
  send(JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32601, message: 'Method not found' } }));
});
