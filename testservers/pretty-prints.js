#!/usr/bin/env node
// @ts-check
// A server written by hand that pretty-prints what it writes on stdout, as JSON.stringify(m,
// null, 2) does: each message across several lines, which MCP's stdio transport does not
// take. With PRETTY_PRINTS=dump it prints only a pretty config dump that way (not a message)
// and then speaks properly, one message a line, with one tool, `hello`.
import { createInterface } from 'node:readline';
import { answerInitialize, send } from './raw-protocol.js';

const dumpOnly = process.env.PRETTY_PRINTS === 'dump';
const write = (/** @type {object} */ message) =>
  dumpOnly
    ? send(message)
    : process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...message }, null, 2) + '\n');
if (dumpOnly) process.stdout.write(JSON.stringify({ config: { port: 3000, debug: true } }, null, 2) + '\n');

createInterface({ input: process.stdin }).on('line', (line) => {
  const { id, method, params } = JSON.parse(line);
  if (id === undefined) return;
  if (method === 'initialize') {
    if (dumpOnly) answerInitialize(id, params, 'pretty-prints');
    else
      write({
        id,
        result: {
          protocolVersion: params.protocolVersion,
          capabilities: { tools: {} },
          serverInfo: { name: 'pretty-prints', version: '1.0.0' },
        },
      });
  } else if (method === 'tools/list')
    write({ id, result: { tools: [{ name: 'hello', inputSchema: { type: 'object' } }] } });
  else if (method === 'tools/call') write({ id, result: { content: [{ type: 'text', text: 'hello' }] } });
  else write({ id, result: {} });
});
