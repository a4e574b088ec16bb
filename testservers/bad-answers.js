// @ts-check
// Simulates: a hand-written server whose answers JSON-RPC does not allow (an error without an
// integer code, `"error": null`, an answer with neither result nor error), results MCP does not
// allow (null, a string: MCP's are objects), and whose
// resources/templates/list answers `{}` though it declares resources; tool `latin1` answers
// with a byte that is not UTF-8, `broken_json` with 20 KB of text holding an unescaped quote
// (not JSON: written by hand, as a shell script's printf would). Raw JSON lines, no SDK: an SDK would not write these.
import { createInterface } from 'node:readline';

/** @param {unknown} message */
const out = (message) => process.stdout.write(JSON.stringify(message) + '\n');

/** What each tool answers, by its name: the body beside the id. */
const ANSWERS = {
  no_code: { error: { message: 'no code here' } },
  string_code: { error: { code: 'E42', message: 'a string code' } },
  null_error: { error: null },
  empty_answer: {},
  null_result: { result: null },
  text_result: { result: 'done' },
  fine: { result: { content: [{ type: 'text', text: 'fine' }] } },
  latin1: {},
  broken_json: {},
};

/** A result of 20 KB whose text has a quote left unescaped, in the order people write by hand: id, then result. */
const brokenJson = (/** @type {unknown} */ id) =>
  process.stdout.write(
    `{"jsonrpc": "2.0", "id": ${JSON.stringify(id)}, "result": {"content": [{"type": "text", "text": "he said "hi" ${'x'.repeat(20_000)}"}]}}\n`,
  );

/** "café" in Latin-1 (its é the one byte 0xE9, not UTF-8), in the TypeScript SDK's order: result first. */
const latin1 = (/** @type {unknown} */ id) =>
  process.stdout.write(
    Buffer.concat([
      Buffer.from('{"result":{"content":[{"type":"text","text":"caf'),
      Buffer.from([0xe9]),
      Buffer.from(`"}]},"jsonrpc":"2.0","id":${JSON.stringify(id)}}\n`),
    ]),
  );

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
  if (method === 'tools/call' && params.name === 'latin1') return latin1(id);
  if (method === 'tools/call' && params.name === 'broken_json') return brokenJson(id);
  if (method === 'tools/call')
    return out({ jsonrpc: '2.0', id, ...ANSWERS[/** @type {keyof typeof ANSWERS} */ (params.name)] });
  out({ jsonrpc: '2.0', id, result: {} });
});
