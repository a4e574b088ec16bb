// @ts-check
// Simulates: a server that finishes the handshake in a protocol version no client speaks
// (it answers initialize with 1999-01-01, or with the JSON-RPC error its first argument
// names: `error`), and stays up until its stdin ends, as a live server would.
import { createInterface } from 'node:readline';

const refuse = process.argv[2] === 'error';
const send = (/** @type {object} */ message) => process.stdout.write(`${JSON.stringify(message)}\n`);
createInterface({ input: process.stdin }).on('line', (line) => {
  const message = JSON.parse(line);
  if (message.id === undefined || message.method === undefined) return;
  if (message.method === 'initialize' && !refuse)
    send({
      jsonrpc: '2.0',
      id: message.id,
      result: {
        protocolVersion: '1999-01-01',
        capabilities: { tools: {} },
        serverInfo: { name: 'wrong', version: '1' },
      },
    });
  else if (message.method === 'initialize')
    send({
      jsonrpc: '2.0',
      id: message.id,
      error: { code: -32602, message: 'Unsupported protocol version; this server speaks 1999-01-01' },
    });
  else send({ jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'Method not found' } });
});
