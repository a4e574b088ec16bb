// The built mcpmux on stdio with a client that reads and writes raw JSON-RPC lines, for tests
// of what goes over the wire (order, flow control) that an SDK client would hide.
import { ChildProcess } from '../../src/child/process/child-process.js';
import { DIST_MAIN } from './fixtures.js';
import { LEAK_TAG_VAR, taggedEnv, waitFor } from './processes.js';

export interface RawClient {
  mcpmux: ChildProcess;
  stderr: () => string;
  /** Writes one message (`jsonrpc` is added). */
  send: (message: object) => void;
  /** Every byte mcpmux wrote on stdout so far. */
  output: () => Buffer;
}

export interface RawOpening {
  /** false: initialize alone, as a client that skips notifications/initialized (nothing is waited for). */
  initialized?: boolean;
  /** What the client declares in its initialize. */
  capabilities?: Record<string, unknown>;
  /** Messages sent before initialize (a discover probe, say), each after the answer to the one before. */
  before?: { id: number; method: string; params?: unknown }[];
}

/**
 * Spawns mcpmux with `args` (after `--pass-env` for the leak tag), hands each line it writes
 * to `onMessage` parsed (with the means to answer it), opens a 2025 session, and waits until
 * `server` is running.
 */
export async function rawMcpmux(
  args: string[],
  server: string,
  onMessage: (message: Record<string, any>, send: (message: object) => void) => void,
  { initialized = true, capabilities = {}, before = [] }: RawOpening = {},
): Promise<RawClient> {
  const mcpmux = await ChildProcess.spawn({
    command: process.execPath,
    args: [DIST_MAIN, '--pass-env', LEAK_TAG_VAR, ...args],
    env: taggedEnv(),
  });
  let stderr = '';
  mcpmux.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  let partial = '';
  const written: Buffer[] = [];
  const answered = new Set<unknown>();
  const send = (message: object) => mcpmux.stdin.write(JSON.stringify({ jsonrpc: '2.0', ...message }) + '\n');
  mcpmux.stdout.on('data', (chunk: Buffer) => {
    written.push(chunk);
    const lines = (partial + chunk.toString('utf8')).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      const message = JSON.parse(line);
      if (message.id !== undefined && message.method === undefined) answered.add(message.id);
      onMessage(message, send);
    }
  });
  for (const message of before) {
    send(message);
    if (!(await waitFor(() => answered.has(message.id))))
      throw new Error(`${message.method} was not answered`);
  }
  send({
    id: 1,
    method: 'initialize',
    params: {
      protocolVersion: '2025-11-25',
      capabilities,
      clientInfo: { name: 'raw-client', version: '1' },
    },
  });
  if (!initialized) return { mcpmux, stderr: () => stderr, send, output: () => Buffer.concat(written) };
  // As a client does: initialized only once initialize is answered (the answer waits for the
  // configured servers, so it may come after they log that they run).
  if (!(await waitFor(() => answered.has(1)))) throw new Error(`initialize was not answered: ${stderr}`);
  send({ method: 'notifications/initialized' });
  if (!(await waitFor(() => stderr.includes(`server '${server}' is running`))))
    throw new Error(`server '${server}' did not start: ${stderr}`);
  return { mcpmux, stderr: () => stderr, send, output: () => Buffer.concat(written) };
}
