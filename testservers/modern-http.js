// @ts-check
// Simulates: a remote server on the current SDK line (v2) behind createMcpHandler: stateless
// 2026-07-28 (a server per request, changes published through the handler to the clients'
// listen streams), and stateless 2025 for older clients. It listens on 127.0.0.1 (port from
// PORT, or any) and prints `listening on <url>` to stderr. `echo` echoes; `add_tool {name}`
// registers a tool for every later request and says so on the listen streams; `confirm
// {action}` asks the client through input_required; `touch` says memo://remote changed;
// `route {region, query}` marks region for an Mcp-Param-Region header (SEP-2243), which the
// SDK's handler requires on every call that gives a region; `rename_header {header}` has it
// declare another header name from the next request on, telling nobody (a server redeployed
// with a new schema, whose clients' lists are stale until they list again).
// REQUIRE_HEADER="Name: value" makes it refuse (401) a request without that header.
import { createServer } from 'node:http';
import {
  McpServer,
  acceptedContent,
  createMcpHandler,
  fromJsonSchema,
  inputRequired,
} from '@modelcontextprotocol/server';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { z } from 'zod';

/** @type {string[]} */
const added = [];
const confirmation = z.object({ confirm: z.boolean() });
let regionHeader = 'Region';

/** @returns {McpServer} */
function build() {
  const server = new McpServer(
    { name: 'modern-http', version: '1.0.0' },
    { capabilities: { resources: { subscribe: true } } },
  );
  server.registerTool(
    'echo',
    { description: 'Echo the message back', inputSchema: z.object({ message: z.string() }) },
    ({ message }) => ({ content: [{ type: 'text', text: message }] }),
  );
  server.registerTool(
    'add_tool',
    { description: 'Register a new tool', inputSchema: z.object({ name: z.string() }) },
    ({ name }) => {
      added.push(name);
      handler.notify.toolsChanged();
      return { content: [{ type: 'text', text: `added ${name}` }] };
    },
  );
  server.registerTool(
    'confirm',
    { description: 'Ask the user to confirm an action', inputSchema: z.object({ action: z.string() }) },
    ({ action }, ctx) => {
      const answer = acceptedContent(ctx.mcpReq.inputResponses, 'confirm', confirmation);
      if (answer === undefined)
        return inputRequired({
          inputRequests: {
            confirm: inputRequired.elicit({ message: `Confirm ${action}?`, requestedSchema: confirmation }),
          },
        });
      return { content: [{ type: 'text', text: `${action}: accept ${JSON.stringify(answer)}` }] };
    },
  );
  server.registerTool(
    'route',
    {
      description: 'Route a query to a region',
      inputSchema: fromJsonSchema({
        type: 'object',
        properties: { region: { type: 'string', 'x-mcp-header': regionHeader }, query: { type: 'string' } },
      }),
    },
    (/** @type {{region?: string, query?: string}} */ { region, query }) => ({
      content: [{ type: 'text', text: `routed to ${region ?? 'anywhere'}: ${query ?? ''}` }],
    }),
  );
  server.registerTool(
    'rename_header',
    {
      description: "Rename route's region header, telling nobody",
      inputSchema: z.object({ header: z.string() }),
    },
    ({ header }) => {
      regionHeader = header;
      return { content: [{ type: 'text', text: `region goes in Mcp-Param-${header}` }] };
    },
  );
  server.registerResource('memo', 'memo://remote', { description: 'A remote memo' }, (uri) => ({
    contents: [{ uri: uri.href, text: 'a remote memo' }],
  }));
  server.registerTool('touch', { description: 'Say that memo://remote changed' }, () => {
    handler.notify.resourceUpdated('memo://remote');
    return { content: [{ type: 'text', text: 'told' }] };
  });
  for (const name of added)
    server.registerTool(name, { description: `Tool ${name}, added at run time` }, () => ({
      content: [{ type: 'text', text: name }],
    }));
  return server;
}

const handler = createMcpHandler(build, { legacy: 'stateless' });
const serve = toNodeHandler(handler);
// REQUIRE_HEADER="Name: value": a request without that header is refused with 401, as a
// server behind an API key refuses it.
const [requiredName, requiredValue] = (process.env['REQUIRE_HEADER'] ?? '').split(/:\s*/);
const http = createServer((req, res) => {
  if (requiredName && req.headers[requiredName.toLowerCase()] !== requiredValue) {
    res.writeHead(401, { 'content-type': 'text/plain' }).end(`missing header ${requiredName}`);
    return;
  }
  void serve(req, res);
});
http.listen(Number(process.env['PORT'] ?? 0), '127.0.0.1', () => {
  const address = http.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  process.stderr.write(`listening on http://127.0.0.1:${port}/mcp\n`);
});
// Ends with its stdin (a test runs it as a child) as well as on a signal.
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
