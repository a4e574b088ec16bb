// A client's model played from a script: each sampling/createMessage mcpmux sends is kept
// for the test to check, and answered by the next step (a tool call or final words). No
// model is needed to test the agent tool end to end.
import type { Client, ClientCapabilities } from '@modelcontextprotocol/client';

export type SamplingParams = {
  messages: { role: string; content: any }[];
  systemPrompt?: string;
  tools?: { name: string; description?: string; inputSchema: object }[];
  maxTokens: number;
  modelPreferences?: { hints?: { name?: string }[] };
};
export type Step = (params: SamplingParams) => unknown | Promise<unknown>;

let uses = 0;

/** The model asks for one tool call. */
export const toolUse = (name: string, input: Record<string, unknown> = {}) => ({
  model: 'scripted',
  role: 'assistant',
  stopReason: 'toolUse',
  content: [{ type: 'tool_use', id: `toolu_${++uses}`, name, input }],
});

/** The model answers in words: the run ends. */
export const answer = (text: string) => ({
  model: 'scripted',
  role: 'assistant',
  stopReason: 'endTurn',
  content: { type: 'text', text },
});

/** The blocks of the last message mcpmux sent (the tool results of the previous turn). */
export const lastBlocks = (params: SamplingParams): any[] => {
  const content = params.messages.at(-1)!.content;
  return Array.isArray(content) ? content : [content];
};

export function scriptedModel(steps: Step[], { tools = true } = {}) {
  const seen: SamplingParams[] = [];
  const capabilities: ClientCapabilities = tools ? { sampling: { tools: {} } } : { sampling: {} };
  return {
    seen,
    capabilities,
    setup: (client: Client) =>
      client.setRequestHandler('sampling/createMessage', async (request) => {
        const params = request.params as unknown as SamplingParams;
        seen.push(params);
        const step = steps[seen.length - 1];
        if (!step)
          throw new Error(`the script has ${steps.length} steps; a turn ${seen.length} was asked for`);
        return (await step(params)) as never;
      }),
  };
}
