// MCP over HTTP by hand, for tests that must send what an SDK client would not: a Host of their
// choosing, a body that is not JSON, a session opened and then abandoned.
import { request, type IncomingHttpHeaders } from 'node:http';

export const PROTOCOL = '2025-11-25';
export const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};
export const JSON_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
};

/**
 * One POST with whatever headers a test wants: node:http, because fetch will not send a Host of
 * our choosing. A Buffer body goes as it is (a text that is not JSON); anything else as JSON.
 */
export function post(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; text: string; headers: IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { ...JSON_HEADERS, ...headers } }, (res) => {
      let text = '';
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, text, headers: res.headers }));
    });
    req.on('error', reject);
    req.end(Buffer.isBuffer(body) ? body : JSON.stringify(body));
  });
}

/** A session opened by hand: initialize, initialized; returns its id. */
export async function openSession(url: string, headers: Record<string, string> = {}): Promise<string> {
  const init = await post(url, INITIALIZE, headers);
  if (init.status !== 200) throw new Error(`initialize: ${init.status} ${init.text}`);
  const id = init.headers['mcp-session-id'] as string;
  await post(
    url,
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { ...headers, 'mcp-session-id': id, 'mcp-protocol-version': PROTOCOL },
  );
  return id;
}

export const inSession = (id: string, extra: Record<string, string> = {}) => ({
  'mcp-session-id': id,
  'mcp-protocol-version': PROTOCOL,
  ...extra,
});
export const callTool = (name: string, args: Record<string, unknown> = {}, id = 2) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: args },
});
