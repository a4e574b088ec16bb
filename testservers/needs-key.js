// @ts-check
// Simulates: a server that needs an API key, as registry entries mark a secret. On stdio it
// reads FIXTURE_API_KEY (and exits, saying so, when it is not set); with NEEDS_KEY_HTTP=1 it listens on
// 127.0.0.1 (printing `listening on <url>` to stderr) and refuses with 403 a request without
// the header X-Api-Key. Its one tool, key_hash, answers the SHA-256 of the key it was given,
// so a test can check that the key arrived without the key appearing anywhere.
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

const hash = (/** @type {string} */ key) => `sha256:${createHash('sha256').update(key).digest('hex')}`;

function build(/** @type {string} */ key) {
  const server = new McpServer({ name: 'needs-key', version: '1.0.0' });
  server.registerTool(
    'key_hash',
    { description: 'The SHA-256 of the API key this server was given' },
    () => ({
      content: [{ type: 'text', text: hash(key) }],
    }),
  );
  return server;
}

if (process.env.NEEDS_KEY_HTTP === '1') {
  const http = createServer(async (req, res) => {
    const key = req.headers['x-api-key'];
    if (typeof key !== 'string' || key === '') {
      res.writeHead(403, { 'content-type': 'text/plain' });
      res.end('X-Api-Key is required');
      return;
    }
    // Stateless: a server and a transport for each request.
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    await build(key).connect(transport);
    await transport.handleRequest(req, res);
  });
  http.listen(0, '127.0.0.1', () => {
    const address = http.address();
    if (address && typeof address === 'object')
      process.stderr.write(`listening on http://127.0.0.1:${address.port}/mcp\n`);
  });
} else {
  const key = process.env.FIXTURE_API_KEY;
  if (!key) {
    process.stderr.write('needs-key: FIXTURE_API_KEY is not set\n');
    process.exit(1);
  }
  await build(key).connect(new StdioServerTransport());
}
