// @ts-check
// Simulates: a server whose lists hold items that are not valid MCP next to good ones (a
// tool without an inputSchema, one whose inputSchema is not an object, a prompt without a
// name, a resource without a uri). Tool `fix` makes every list valid and sends
// list_changed, as a rebuilt server would; `ping` answers pong.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import {
  CallToolRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';

let fixed = false;
const object = { type: 'object', properties: {} };
const server = new Server(
  { name: 'malformed-items', version: '1.0.0' },
  { capabilities: { tools: { listChanged: true }, prompts: {}, resources: {} } },
);
// The SDK's low-level Server sends what a handler returns without checking it.
server.setRequestHandler(ListToolsRequestSchema, () => ({
  tools: [
    { name: 'ping', description: 'Answer pong', inputSchema: object },
    { name: 'fix', description: 'Make every list valid', inputSchema: object },
    ...(fixed
      ? [{ name: 'no_schema', inputSchema: object }]
      : [
          { name: 'no_schema', description: 'Has no inputSchema' },
          { name: 'string_schema', inputSchema: { type: 'string' } },
        ]),
  ],
}));
server.setRequestHandler(ListPromptsRequestSchema, () => ({
  prompts: [{ name: 'greet' }, ...(fixed ? [] : [{ description: 'A prompt without a name' }])],
}));
server.setRequestHandler(ListResourcesRequestSchema, () => ({
  resources: [{ uri: 'file:///ok.txt', name: 'ok' }, ...(fixed ? [] : [{ name: 'no uri' }])],
}));
server.setRequestHandler(CallToolRequestSchema, async (request) => {
  if (request.params.name === 'fix') {
    fixed = true;
    await server.sendToolListChanged();
    return { content: [{ type: 'text', text: 'fixed' }] };
  }
  return { content: [{ type: 'text', text: 'pong' }] };
});
await server.connect(new StdioServerTransport());
