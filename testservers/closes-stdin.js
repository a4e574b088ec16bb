// @ts-check
// Simulates: a server that closes its stdin and lives on (its reader gave up, or a bug closed
// the descriptor): tool `close` answers, then closes stdin; anything written to it after that
// fails with EPIPE. It ignores SIGTERM, so only a SIGKILL to its group ends it. Written by hand
// and read synchronously: Node aborts if a descriptor its event loop watches is closed under it.
import { closeSync, readSync } from 'node:fs';
import { answerInitialize, send } from './raw-protocol.js';

const tools = [
  { name: 'close', description: 'Answer, then close stdin', inputSchema: { type: 'object' } },
  { name: 'echo', description: 'Answer "echo"', inputSchema: { type: 'object' } },
];

/** Answers one message; false once stdin is closed. */
function answer(line) {
  const { id, method, params } = JSON.parse(line);
  if (method === 'initialize') answerInitialize(id, params, 'closes-stdin');
  else if (method === 'tools/list') send({ id, result: { tools } });
  else if (method === 'tools/call') {
    send({ id, result: { content: [{ type: 'text', text: params.name === 'close' ? 'closing' : 'echo' }] } });
    if (params.name === 'close') {
      closeSync(0);
      return false;
    }
  } else if (id !== undefined) send({ id, result: {} });
  return true;
}

process.on('SIGTERM', () => {});
const buffer = Buffer.alloc(65536);
let pending = '';
for (let open = true; open;) {
  let read;
  try {
    read = readSync(0, buffer);
  } catch (error) {
    if (/** @type {NodeJS.ErrnoException} */ (error).code === 'EAGAIN') continue;
    throw error;
  }
  if (read === 0) break;
  pending += buffer.toString('utf8', 0, read);
  let end;
  while (open && (end = pending.indexOf('\n')) >= 0) {
    const line = pending.slice(0, end);
    pending = pending.slice(end + 1);
    if (line.trim()) open = answer(line);
  }
}
setInterval(() => {}, 1 << 30);
