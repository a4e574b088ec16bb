// @ts-check
// Simulates: a server that asks its client for things whether or not the client declared
// them. `ask {method}` sends sampling/createMessage, elicitation/create or roots/list and
// returns the answer, or the error it got, as text. `ask_all` sends all three at once, then
// one more elicitation once they are answered, and returns the four answers. `open_url {id}`
// asks the client to send its user to a URL (URL-mode elicitation, id `id`) and, once
// answered, says the interaction there ended (notifications/elicitation/complete);
// `needs_url {id}` fails with the -32042 error naming such an elicitation, and says it ended
// 100 ms later.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { UrlElicitationRequiredError } from '@modelcontextprotocol/sdk/types.js';
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
const urlElicitation = (/** @type {string} */ elicitationId) => ({
  mode: /** @type {const} */ ('url'),
  elicitationId,
  url: `https://auth.example.com/connect?state=${elicitationId}`,
  message: 'Connect your account',
});
const completed = (/** @type {string} */ elicitationId) =>
  server.server.notification({ method: 'notifications/elicitation/complete', params: { elicitationId } });
server.registerTool(
  'open_url',
  {
    description: 'Send the user to a URL, then say the interaction there ended',
    inputSchema: { id: z.string() },
  },
  async ({ id }) => {
    const answer = await server.server.request(
      { method: 'elicitation/create', params: urlElicitation(id) },
      z.any(),
    );
    await completed(id);
    return { content: [{ type: 'text', text: `answer: ${JSON.stringify(answer)}` }] };
  },
);
server.registerTool(
  'needs_url',
  {
    description: 'Fail until the user visits a URL; say it ended 100 ms later',
    inputSchema: { id: z.string() },
  },
  async ({ id }) => {
    setTimeout(() => void completed(id), 100);
    throw new UrlElicitationRequiredError([urlElicitation(id)]);
  },
);
await server.connect(new StdioServerTransport());
