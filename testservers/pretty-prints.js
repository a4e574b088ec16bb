#!/usr/bin/env node
// @ts-check
// A server written by hand that pretty-prints what it writes on stdout, as JSON.stringify(m,
// null, 2) does: each message across several lines, which MCP's stdio transport does not
// take. With PRETTY_PRINTS=dump it prints only a pretty config dump that way (not a message)
// and then speaks properly, one message a line, with one tool, `hello`.
import { createInterface } from 'node:readline';
import { initializeResult } from './raw-protocol.js';

const dumpOnly = process.env.PRETTY_PRINTS === 'dump';
const write = (/** @type {object} */ message) =>
  process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...message }, null, dumpOnly ? 0 : 2) + '\n');
if (dumpOnly) process.stdout.write(JSON.stringify({ config: { port: 3000, debug: true } }, null, 2) + '\n');

const RESULTS = /** @type {Record<string, object>} */ ({
  'tools/list': { tools: [{ name: 'hello', inputSchema: { type: 'object' } }] },
  'tools/call': { content: [{ type: 'text', text: 'hello' }] },
});
createInterface({ input: process.stdin }).on('line', (line) => {
  const { id, method, params } = JSON.parse(line);
  if (id === undefined) return;
  write({
    id,
    result: method === 'initialize' ? initializeResult(params, 'pretty-prints') : (RESULTS[method] ?? {}),
  });
});
