// The forwarding side of the cluster's hop (transport/hop-lines.ts is the owner's): one
// connection to the replica that runs a server, upgraded from HTTP with the cluster's token,
// then JSON-RPC lines both ways, spoken by the generation's SDK client like a stdio child's.
// The connection's end is the generation's end, which the cluster's placement sees as a crash and
// follows to wherever the server runs next.
import { request } from 'node:http';
import type { Socket } from 'node:net';
import { Readable } from 'node:stream';
import { StdioChildTransport } from '../process/stdio-child-transport.js';
import type { ConnectHost } from '../connect-host.js';
import { DEFAULT_MAX_MESSAGE_BYTES } from '../../protocol/json-line-reader.js';

/** The protocol named in the Upgrade header, both ways. */
export const HOP_UPGRADE = 'mcpmux-hop';
/** How much of a refusal's body is kept for its message. */
const REFUSAL_TEXT_CHARS = 300;

/** Opens the hop at `url` (…/cluster/servers/NAME/lines) with `headers` (the token); its lines as an SDK transport. */
export async function openHopLink(
  url: URL,
  headers: Readonly<Record<string, string>>,
  host: Pick<ConnectHost, 'name' | 'options' | 'log'>,
  { signal }: { signal: AbortSignal },
): Promise<StdioChildTransport> {
  const socket = await upgraded(url, headers, signal);
  socket.setNoDelay(true);
  // Read and written as a stdio child's pipes are; the owner's stderr stays on its machine.
  const transport = new StdioChildTransport(
    { stdin: socket, stdout: socket, stderr: Readable.from([]), pid: 0 },
    {
      maxMessageBytes: host.options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES,
      onDropped: (why) => host.log.warn(`[${host.name}] ${why}`),
      onSkippedLine: (line) =>
        host.log.warn(`[${host.name}] skipped a non-JSON line from the hop: ${line.slice(0, 200)}`),
    },
  );
  const close = transport.close.bind(transport);
  transport.close = async () => {
    await close();
    socket.destroy();
  };
  return transport;
}

/** The socket once the owner switched protocols; a refusal fails with its status and what it said. */
function upgraded(url: URL, headers: Readonly<Record<string, string>>, signal: AbortSignal): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: 'GET',
      headers: { ...headers, Connection: 'Upgrade', Upgrade: HOP_UPGRADE },
      signal,
    });
    req.once('upgrade', (res, socket, head) => {
      if (res.headers.upgrade?.toLowerCase() !== HOP_UPGRADE) {
        socket.destroy();
        return reject(new Error(`${url.origin} switched to '${res.headers.upgrade}', not the cluster's hop`));
      }
      if (head.length > 0) socket.unshift(head);
      resolve(socket);
    });
    req.once('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text = (text + chunk).slice(0, REFUSAL_TEXT_CHARS)));
      res.once('end', () =>
        reject(
          new Error(`the cluster's hop at ${url.origin} answered HTTP ${res.statusCode}: ${text.trim()}`),
        ),
      );
      res.once('error', reject);
    });
    req.once('error', reject);
    req.end();
  });
}
