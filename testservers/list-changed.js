// @ts-check
// Simulates: a server whose tools and prompts change at run time and that sends its own
// list_changed notifications. `add_tool {name}` adds a tool, `add_prompt {name}` a prompt
// (it starts with one, `hello`); `touch` sends tools list_changed without changing anything.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const server = new McpServer({ name: 'list-changed', version: '1.0.0' });
server.registerTool(
  'add_tool',
  { description: 'Register a new tool', inputSchema: { name: z.string() } },
  ({ name }) => {
    server.registerTool(name, { description: `Tool ${name}, added at run time` }, () => ({
      content: [{ type: 'text', text: name }],
    }));
    return { content: [{ type: 'text', text: `added ${name}` }] };
  },
);
server.registerTool('touch', { description: 'Send list_changed without a change' }, () => {
  server.sendToolListChanged();
  return { content: [{ type: 'text', text: 'touched' }] };
});
const promptOf = (/** @type {string} */ name) => () => ({
  messages: [
    {
      role: /** @type {const} */ ('user'),
      content: { type: /** @type {const} */ ('text'), text: `prompt ${name}` },
    },
  ],
});
server.registerPrompt('hello', { description: 'The prompt it starts with' }, promptOf('hello'));
server.registerTool(
  'add_prompt',
  { description: 'Register a new prompt', inputSchema: { name: z.string() } },
  ({ name }) => {
    server.registerPrompt(name, { description: `Prompt ${name}, added at run time` }, promptOf(name));
    return { content: [{ type: 'text', text: `added prompt ${name}` }] };
  },
);
await server.connect(new StdioServerTransport());
