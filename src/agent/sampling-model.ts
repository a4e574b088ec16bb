// The client's own model, reached through MCP sampling: each turn is a
// sampling/createMessage with the sub-agent's history and tools. The client stays in
// control (its user can see and refuse each request). A client that declares
// `sampling.tools` (2025-11-25) gets real tool_use / tool_result blocks; one that declares
// only `sampling` gets the tools described in text and answers a call as a JSON object,
// which works only as well as its model follows that instruction.
import type { ClientCapabilities, Tool } from '@modelcontextprotocol/server';
import type { InputOrigin } from '../child/child-types.js';
import { MuxError } from '../common/errors.js';
import {
  blocksOf,
  type ModelSource,
  type SamplingMessage,
  type Turn,
  type TurnBlock,
  type TurnRequest,
} from './model-source.js';

/** Whether a client can run the agent on its own model, and how. */
export function samplingSupport(capabilities: ClientCapabilities | undefined): 'tools' | 'text' | undefined {
  const sampling = capabilities?.sampling as { tools?: object } | undefined;
  if (!sampling) return undefined;
  return sampling.tools ? 'tools' : 'text';
}

/** One turn may wait for a person to approve it, then for the model: the run's own timeout bounds the rest. */
const SAMPLING_TIMEOUT_MS = 10 * 60_000;

export class SamplingModel implements ModelSource {
  readonly name = 'sampling';
  readonly #origin: InputOrigin;

  constructor(origin: InputOrigin) {
    this.#origin = origin;
  }

  async next(request: TurnRequest, signal: AbortSignal): Promise<Turn> {
    const support = samplingSupport(this.#origin.capabilities);
    if (!support) throw new MuxError('NO_MODEL', 'the client no longer declares sampling');
    const withTools = support === 'tools';
    const params: Record<string, unknown> = {
      messages: withTools ? request.messages : request.messages.map(asText),
      systemPrompt: withTools ? request.system : `${request.system}\n\n${toolsInText(request.tools)}`,
      maxTokens: request.maxTokens,
      includeContext: 'none',
      ...(request.model && { modelPreferences: { hints: [{ name: request.model }] } }),
      ...(withTools && {
        tools: request.tools.map(({ name, description, inputSchema }) => ({
          name,
          ...(description !== undefined && { description }),
          inputSchema,
        })),
        toolChoice: { mode: 'auto' },
      }),
    };
    const result = await this.#origin.ask(
      { method: 'sampling/createMessage', params },
      signal,
      SAMPLING_TIMEOUT_MS,
    );
    if (result['role'] !== 'assistant')
      throw new Error(
        `the client's sampling answered with role '${String(result['role'])}', not 'assistant'`,
      );
    const blocks = blocksOf(result['content'] as TurnBlock | TurnBlock[]).filter(
      (b) => b?.type === 'text' || b?.type === 'tool_use',
    );
    return {
      content: withTools ? blocks : blocks.flatMap(fromText),
      stopReason: result['stopReason'] as string | undefined,
      model: result['model'] as string | undefined,
    };
  }
}

/** For a client without tool use: how to call a tool, and what there is. */
function toolsInText(tools: readonly Tool[]): string {
  const list = tools
    .map(
      (t) =>
        `- ${t.name}: ${t.description ?? ''}\n  arguments (JSON Schema): ${JSON.stringify(t.inputSchema)}`,
    )
    .join('\n');
  return [
    'You can call tools. To call one, answer with only a JSON object and nothing else:',
    '{"tool": "<tool name>", "arguments": {…}}',
    'You will get its result in the next message. When you have the answer, reply in plain words.',
    'Tools:',
    list,
  ].join('\n');
}

/** History as text, for a client whose sampling takes no tool blocks. */
function asText(message: SamplingMessage): SamplingMessage {
  const text = blocksOf(message.content)
    .map((block) => {
      switch (block.type) {
        case 'text':
          return block.text;
        case 'tool_use':
          return JSON.stringify({ tool: block.name, arguments: block.input });
        case 'tool_result':
          return `Result${block.isError ? ' (error)' : ''} of the call: ${block.content
            .map((c) => (c.type === 'text' ? c.text : `[${c.type}]`))
            .join('\n')}`;
        default:
          return `[${block.type}]`;
      }
    })
    .join('\n');
  return { role: message.role, content: { type: 'text', text } };
}

let textCallCount = 0;

/** A text answer that is a tool call as toolsInText asks (optionally fenced) becomes a tool_use block. */
function fromText(block: TurnBlock): TurnBlock[] {
  if (block.type !== 'text') return [block];
  const body = block.text
    .trim()
    .replace(/^```(?:json)?\s*/i, '')
    .replace(/\s*```$/, '');
  if (!body.startsWith('{')) return [block];
  try {
    const call = JSON.parse(body) as { tool?: unknown; arguments?: unknown };
    if (typeof call.tool !== 'string') return [block];
    const input =
      typeof call.arguments === 'object' && call.arguments !== null && !Array.isArray(call.arguments)
        ? (call.arguments as Record<string, unknown>)
        : {};
    return [{ type: 'tool_use', id: `text_call_${++textCallCount}`, name: call.tool, input }];
  } catch {
    return [block];
  }
}
