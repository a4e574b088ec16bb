// @ts-check
// Simulates: a server that asks the client for its roots while it handles initialize, and
// answers initialize only once it has them (MCP asks servers to wait for initialized before
// asking anything; some do not). Its one tool, `roots`, answers with the roots it was given.
// Written by hand: an SDK server cannot ask before it has answered initialize.
import { createInterface } from 'node:readline';
import { answerInitialize, send } from './raw-protocol.js';

/** @type {{ id: string | number, params: { protocolVersion: string } } | undefined} */
let initialize;
/** @type {string[]} */
let roots = [];
createInterface({ input: process.stdin }).on('line', (line) => {
  const { id, method, params, result } = JSON.parse(line);
  if (method === 'initialize') {
    initialize = { id, params };
    send({ id: 'roots-on-start', method: 'roots/list', params: {} });
  } else if (id === 'roots-on-start' && initialize) {
    roots = (result?.roots ?? []).map((/** @type {{ uri: string }} */ root) => root.uri);
    answerInitialize(initialize.id, initialize.params, 'asks-on-start');
  } else if (method === 'tools/list')
    send({ id, result: { tools: [{ name: 'roots', inputSchema: { type: 'object' } }] } });
  else if (method === 'tools/call')
    send({ id, result: { content: [{ type: 'text', text: roots.join(' ') }] } });
  else if (method === 'server/discover') send({ id, error: { code: -32601, message: 'Method not found' } });
  else if (id !== undefined && method !== undefined) send({ id, result: {} });
});
