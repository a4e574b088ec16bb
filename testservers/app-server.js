// @ts-check
// Simulates: an MCP App server (the ext-apps pattern): `show-greeting` names its UI by a
// ui:// URI in _meta (under both keys the spec has used), and the UI is a resource at that
// URI. Every instance uses the same URI; APP_GREETING tells instances apart.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';

const UI = 'ui://greeting/view.html';
const greeting = process.env['APP_GREETING'] ?? 'hello';
const server = new McpServer({ name: 'greeting-app', version: '1.0.0' });
server.registerTool(
  'show-greeting',
  {
    description: 'Show the greeting in its view',
    _meta: { ui: { resourceUri: UI }, 'ui/resourceUri': UI },
  },
  () => ({ content: [{ type: 'text', text: greeting }] }),
);
server.registerResource(
  'greeting-view',
  UI,
  { mimeType: 'text/html;profile=mcp-app', description: 'The greeting view' },
  (uri) => ({
    contents: [{ uri: uri.href, mimeType: 'text/html;profile=mcp-app', text: `<p>${greeting}</p>` }],
  }),
);
await server.connect(new StdioServerTransport());
