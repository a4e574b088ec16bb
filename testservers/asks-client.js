// @ts-check
// Simulates: a server that asks its client for things whether or not the client declared
// them. `ask {method}` sends sampling/createMessage, elicitation/create or roots/list and
// returns the answer, or the error it got, as text. `ask_all` sends all three at once, then
// one more elicitation once they are answered, and returns the four answers.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const PARAMS = {
  'sampling/createMessage': {
    messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }],
    maxTokens: 10,
  },
  'elicitation/create': {
    message: 'Your name?',
    requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
  },
  'roots/list': {},
};
const server = new McpServer({ name: 'asks-client', version: '1.0.0' });
server.registerTool(
  'ask',
  {
    description: 'Send a request to the client',
    inputSchema: { method: z.enum(['sampling/createMessage', 'elicitation/create', 'roots/list']) },
  },
  async ({ method }) => {
    try {
      const result = await server.server.request({ method, params: PARAMS[method] }, z.any());
      return { content: [{ type: 'text', text: `answer: ${JSON.stringify(result)}` }] };
    } catch (error) {
      return {
        content: [{ type: 'text', text: `error: ${error instanceof Error ? error.message : String(error)}` }],
      };
    }
  },
);
server.registerTool(
  'ask_all',
  { description: 'Ask the client three things at once, then one more' },
  async () => {
    const ask = (/** @type {keyof typeof PARAMS} */ method) =>
      server.server.request({ method, params: PARAMS[method] }, z.any());
    const first = await Promise.all(
      /** @type {const} */ (['elicitation/create', 'sampling/createMessage', 'roots/list']).map(ask),
    );
    const then = await ask('elicitation/create');
    return { content: [{ type: 'text', text: `answers: ${JSON.stringify([...first, then])}` }] };
  },
);
await server.connect(new StdioServerTransport());
