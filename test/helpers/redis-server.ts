// A real redis-server for a test: on a free 127.0.0.1 port, nothing kept on disk, stopped (and
// confirmed dead) at the test's end. It can be stopped and started again on the same port, as
// an outage is.
import { createServer } from 'node:net';
import type { Test } from 'tap';
import { ChildProcess } from '../../src/child/process/child-process.js';
import { taggedEnv, waitFor } from './processes.js';

export interface RedisServer {
  readonly url: string;
  readonly port: number;
  stop(): Promise<void>;
  start(): Promise<void>;
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export async function startRedis(t: Test): Promise<RedisServer> {
  const port = await freePort();
  let proc: ChildProcess | undefined;
  const start = async () => {
    proc = await ChildProcess.spawn({
      command: 'redis-server',
      args: [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'no',
        '--protected-mode',
        'yes',
      ],
      env: taggedEnv(),
    });
    let out = '';
    proc.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    proc.stderr.resume();
    if (!(await waitFor(() => out.includes('Ready to accept connections'), 10_000)))
      throw new Error(`redis-server did not start: ${out}`);
  };
  const stop = async () => {
    await proc?.stop({ stdinGraceMs: 0 });
    proc = undefined;
  };
  await start();
  t.teardown(stop);
  return { url: `redis://127.0.0.1:${port}`, port, stop, start };
}
