// @ts-check
// Simulates: a server that remembers what its client asked of it. It offers one resource
// (memo://note) that can be subscribed to, and takes a logging level; the tool `state`
// reports the URIs subscribed right now and the last level set, so a test can see what a
// proxy left behind at the server when its client went away. `touch` sends
// notifications/resources/updated for memo://note when it is subscribed.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import {
  SetLevelRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';

const server = new McpServer(
  { name: 'tracks-subscriptions', version: '1.0.0' },
  { capabilities: { resources: { subscribe: true }, logging: {} } },
);
/** @type {Set<string>} */
const subscribed = new Set();
/** @type {string | null} */
let level = null;
server.registerResource('note', 'memo://note', { description: 'A note' }, (uri) => ({
  contents: [{ uri: uri.href, text: 'a note' }],
}));
server.server.setRequestHandler(
  SubscribeRequestSchema,
  (request) => (subscribed.add(request.params.uri), {}),
);
server.server.setRequestHandler(
  UnsubscribeRequestSchema,
  (request) => (subscribed.delete(request.params.uri), {}),
);
server.server.setRequestHandler(SetLevelRequestSchema, (request) => ((level = request.params.level), {}));
server.registerTool(
  'state',
  { description: 'What the client asked of this server: subscriptions and log level' },
  () => ({
    content: [{ type: 'text', text: JSON.stringify({ subscribed: [...subscribed], level }) }],
  }),
);
server.registerTool('touch', { description: 'Say that memo://note changed' }, async () => {
  if (subscribed.has('memo://note')) await server.server.sendResourceUpdated({ uri: 'memo://note' });
  return { content: [{ type: 'text', text: subscribed.has('memo://note') ? 'told' : 'nobody to tell' }] };
});
await server.connect(new StdioServerTransport());
