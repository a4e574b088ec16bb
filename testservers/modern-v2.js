// @ts-check
// Simulates: a server on the current SDK line (v2) served with serveStdio, which speaks the
// 2026-07-28 era to a client that asks for it (and 2025 to one that does not). `echo` echoes;
// `add_tool {name}` registers a tool at run time (its list change goes out on the client's
// listen stream); `confirm {action}` asks the client for a yes/no through input_required
// (2026-07-28) or an elicitation request (2025) and says what it was told; `wizard` (2026-07-28)
// asks a name, then a colour, carrying the name from round to round in its requestState;
// `confirm_push {action}` asks with elicitInput whatever the era, as a server written for 2025
// does (its SDK refuses that in 2026-07-28); `request_id` names the call's JSON-RPC id; `crash` ends the process without answering;
// `log {levels}` sends a log message at each level named (2026-07-28: those at or above the
// level its request asked for, none when it asked for none; 2025: those the session's level lets through).
// It has a resource, memo://modern, that can be subscribed to (2026-07-28: through the
// client's listen stream); `touch` says it changed.
import { McpServer, acceptedContent, inputRequired } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { z } from 'zod';

const confirmation = z.object({ confirm: z.boolean() });
/** A 2025-style elicitation (a request to the client) asking to confirm `action`. */
const confirmRequest = (/** @type {string} */ action) => ({
  message: `Confirm ${action}?`,
  requestedSchema: {
    type: /** @type {const} */ ('object'),
    properties: { confirm: { type: /** @type {const} */ ('boolean') } },
    required: ['confirm'],
  },
});
/** @type {Array<(server: McpServer) => void>} */
const added = [];
const register = (/** @type {McpServer} */ server, /** @type {string} */ name) =>
  server.registerTool(name, { description: `Tool ${name}, added at run time` }, () => ({
    content: [{ type: 'text', text: name }],
  }));

// SLOW_START_MS: how long it takes to start reading (as a server behind an npx download does).
if (process.env.SLOW_START_MS)
  await new Promise((resolve) => setTimeout(resolve, Number(process.env.SLOW_START_MS)));

serveStdio(({ era }) => {
  const server = new McpServer(
    { name: 'modern-v2', version: '1.0.0' },
    { capabilities: { resources: { subscribe: true }, logging: {} } },
  );
  server.registerResource('memo', 'memo://modern', { description: 'A memo' }, (uri) => ({
    contents: [{ uri: uri.href, text: 'a memo' }],
  }));
  server.registerTool('touch', { description: 'Say that memo://modern changed' }, async () => {
    await server.server.sendResourceUpdated({ uri: 'memo://modern' });
    return { content: [{ type: 'text', text: 'told' }] };
  });
  server.registerTool(
    'echo',
    { description: 'Echo the message back', inputSchema: z.object({ message: z.string() }) },
    ({ message }) => ({
      content: [{ type: 'text', text: message }],
    }),
  );
  server.registerTool(
    'add_tool',
    { description: 'Register a new tool', inputSchema: z.object({ name: z.string() }) },
    ({ name }) => {
      added.push((s) => register(s, name));
      register(server, name);
      return { content: [{ type: 'text', text: `added ${name}` }] };
    },
  );
  server.registerTool(
    'confirm',
    { description: 'Ask the user to confirm an action', inputSchema: z.object({ action: z.string() }) },
    async ({ action }, ctx) => {
      if (era === 'legacy') {
        const answer = await ctx.mcpReq.elicitInput(confirmRequest(action));
        return {
          content: [
            { type: 'text', text: `${action}: ${answer.action} ${JSON.stringify(answer.content ?? {})}` },
          ],
        };
      }
      const answer = acceptedContent(ctx.mcpReq.inputResponses, 'confirm', confirmation);
      if (answer === undefined) {
        return inputRequired({
          inputRequests: {
            confirm: inputRequired.elicit({ message: `Confirm ${action}?`, requestedSchema: confirmation }),
          },
        });
      }
      return { content: [{ type: 'text', text: `${action}: accept ${JSON.stringify(answer)}` }] };
    },
  );
  server.registerTool(
    'confirm_push',
    {
      description: 'Ask the user to confirm, as a 2025 server asks',
      inputSchema: z.object({ action: z.string() }),
    },
    async ({ action }, ctx) => {
      const answer = await ctx.mcpReq.elicitInput(confirmRequest(action));
      return { content: [{ type: 'text', text: `${action}: ${answer.action}` }] };
    },
  );
  server.registerTool('wizard', { description: 'Ask a name, then a colour' }, (ctx) => {
    const state = ctx.mcpReq.requestState();
    const name = acceptedContent(ctx.mcpReq.inputResponses, 'name', z.object({ name: z.string() }));
    if (typeof state !== 'string' && name === undefined)
      return inputRequired({
        inputRequests: {
          name: inputRequired.elicit({ message: 'Name?', requestedSchema: z.object({ name: z.string() }) }),
        },
      });
    if (typeof state !== 'string')
      return inputRequired({
        inputRequests: {
          colour: inputRequired.elicit({
            message: 'Colour?',
            requestedSchema: z.object({ colour: z.string() }),
          }),
        },
        requestState: JSON.stringify({ name: name?.name }),
      });
    const colour = acceptedContent(ctx.mcpReq.inputResponses, 'colour', z.object({ colour: z.string() }));
    return { content: [{ type: 'text', text: `${JSON.parse(state).name} likes ${colour?.colour}` }] };
  });
  // Which id the call came under: mcpmux's fast path gives each forwarded call one of its own.
  server.registerTool('request_id', { description: 'The JSON-RPC id this call came under' }, (ctx) => ({
    content: [{ type: 'text', text: String(ctx.mcpReq.id) }],
  }));
  server.registerTool(
    'log',
    {
      description: 'Send a log message at each level named',
      inputSchema: z.object({ levels: z.array(z.enum(['debug', 'info', 'notice', 'warning', 'error'])) }),
    },
    async ({ levels }, ctx) => {
      for (const level of levels) await ctx.mcpReq.log(level, `${level} message`);
      return { content: [{ type: 'text', text: `logged ${levels.length}` }] };
    },
  );
  // A server that dies mid-call: the call's answer is mcpmux's.
  server.registerTool('crash', { description: 'Exit without answering' }, () => process.exit(1));
  for (const add of added) add(server);
  return server;
});
