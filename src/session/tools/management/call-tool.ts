// call_tool: any exposed tool called by its name, for clients that have not listed it yet
// (an add_server's tools, in a client that ignores list_changed).
import { MuxError } from '../../../common/errors.js';
import { callToolInput } from '../management-schemas.js';
import type { ManagementTool } from '../tool-context.js';
import { define, parseArguments as parse } from '../tool-definition.js';

export const callToolTool = (): ManagementTool => ({
  definition: define(
    'call_tool',
    'Call any exposed tool by its name, e.g. {"name": "memory__read_graph", "arguments": {}}. ' +
      'Use it for tools that add_server just returned when your client has not refreshed its tool list.',
    callToolInput,
  ),
  handle: async (raw, ctx) => {
    const args = parse('call_tool', callToolInput, raw);
    if (args.name === 'call_tool')
      throw new MuxError(
        'INVALID_ARGUMENTS',
        'call_tool cannot call itself; give the name of the tool to call',
      );
    return ctx.callTool(args.name, args.arguments);
  },
});
