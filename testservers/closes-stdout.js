// @ts-check
// Simulates: a server that closes its stdout and lives on (a server whose output pipe was
// handed to something else, or closed by a bug): tool `close` closes it without answering.
// It ignores stdin EOF and SIGTERM, so only a SIGKILL to its group ends it. Written by hand,
// not with the SDK, whose transport would throw writing to the closed descriptor.
import { closeSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { answerInitialize, send } from './raw-protocol.js';

createInterface({ input: process.stdin }).on('line', (line) => {
  const { id, method, params } = JSON.parse(line);
  if (method === 'initialize') answerInitialize(id, params, 'closes-stdout');
  else if (method === 'tools/list')
    send({
      id,
      result: {
        tools: [
          { name: 'close', description: 'Close stdout, answer nothing', inputSchema: { type: 'object' } },
        ],
      },
    });
  else if (method === 'tools/call') closeSync(1);
  else if (id !== undefined) send({ id, result: {} });
});
process.on('SIGTERM', () => {});
setInterval(() => {}, 1 << 30);
