// @ts-check
// Simulates: a hand-written server whose answers JSON-RPC does not allow (an error without an
// integer code, `"error": null`, an answer with neither result nor error), and whose
// resources/templates/list answers `{}` though it declares resources. Raw JSON lines, no SDK:
// an SDK would not write these.
import { createInterface } from 'node:readline';

/** @param {unknown} message */
const out = (message) => process.stdout.write(JSON.stringify(message) + '\n');

/** What each tool answers, by its name: the body beside the id. */
const ANSWERS = {
  no_code: { error: { message: 'no code here' } },
  string_code: { error: { code: 'E42', message: 'a string code' } },
  null_error: { error: null },
  empty_answer: {},
  fine: { result: { content: [{ type: 'text', text: 'fine' }] } },
};

createInterface({ input: process.stdin }).on('line', (line) => {
  const message = JSON.parse(line);
  const { id, method, params } = message;
  if (id === undefined) return;
  if (method === 'initialize')
    return out({
      jsonrpc: '2.0',
      id,
      result: {
        protocolVersion: params.protocolVersion,
        capabilities: { tools: {}, resources: {} },
        serverInfo: { name: 'bad-answers', version: '1.0.0' },
      },
    });
  if (method === 'tools/list')
    return out({
      jsonrpc: '2.0',
      id,
      result: { tools: Object.keys(ANSWERS).map((name) => ({ name, inputSchema: { type: 'object' } })) },
    });
  if (method === 'resources/list')
    return out({ jsonrpc: '2.0', id, result: { resources: [{ uri: 'bad://one', name: 'one' }] } });
  if (method === 'resources/templates/list') return out({ jsonrpc: '2.0', id, result: {} });
  if (method === 'resources/read')
    return out({ jsonrpc: '2.0', id, error: { code: '404', message: 'a read that went wrong' } });
  if (method === 'tools/call')
    return out({ jsonrpc: '2.0', id, ...ANSWERS[/** @type {keyof typeof ANSWERS} */ (params.name)] });
  out({ jsonrpc: '2.0', id, result: {} });
});
