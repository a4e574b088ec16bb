// The Anthropic Messages API as a sub-agent's model, through the official SDK (an optional
// dependency, loaded on the first turn). For clients that cannot sample, and for operators
// who want the sub-agent on a model of their choice. ANTHROPIC_BASE_URL (or --agent-base-url)
// points it at a gateway.
import type { ContentBlock, ImageContent, Tool } from '@modelcontextprotocol/server';
import { MuxError } from '../common/errors.js';
import {
  blocksOf,
  type ModelSource,
  type SamplingMessage,
  type Turn,
  type TurnBlock,
  type TurnRequest,
} from './model-source.js';

export interface AnthropicSettings {
  apiKey: string;
  /** Default: the SDK's (ANTHROPIC_BASE_URL, else api.anthropic.com). */
  baseURL?: string | undefined;
  /** Used when the caller gives no model hint. */
  model: string;
}

/** The model used when neither the caller nor --agent-model names one. */
export const DEFAULT_ANTHROPIC_MODEL = 'claude-sonnet-4-5';

type Messages = {
  create(body: Record<string, unknown>, options: { signal: AbortSignal }): Promise<AnthropicMessage>;
};

interface AnthropicMessage {
  model: string;
  content: { type: string; text?: string; id?: string; name?: string; input?: unknown }[];
  stop_reason: string | null;
  usage: { input_tokens: number; output_tokens: number };
}

export class AnthropicModel implements ModelSource {
  readonly name = 'anthropic';
  readonly #settings: AnthropicSettings;
  #messages: Promise<Messages> | undefined;

  constructor(settings: AnthropicSettings) {
    this.#settings = settings;
  }

  async next(request: TurnRequest, signal: AbortSignal): Promise<Turn> {
    const messages = await (this.#messages ??= this.#load());
    const reply = await messages.create(
      {
        model: request.model ?? this.#settings.model,
        max_tokens: request.maxTokens,
        system: request.system,
        messages: request.messages.map(toAnthropic),
        ...(request.tools.length > 0 && { tools: request.tools.map(toAnthropicTool) }),
      },
      { signal },
    );
    return {
      content: reply.content.flatMap((block): TurnBlock[] =>
        block.type === 'text'
          ? [{ type: 'text' as const, text: block.text ?? '' }]
          : block.type === 'tool_use'
            ? [
                {
                  type: 'tool_use' as const,
                  id: block.id!,
                  name: block.name!,
                  input: (block.input ?? {}) as Record<string, unknown>,
                },
              ]
            : [],
      ),
      stopReason: reply.stop_reason ?? undefined,
      model: reply.model,
      usage: { inputTokens: reply.usage.input_tokens, outputTokens: reply.usage.output_tokens },
    };
  }

  async #load(): Promise<Messages> {
    let sdk: { default: new (options: Record<string, unknown>) => { messages: Messages } };
    try {
      sdk = (await import('@anthropic-ai/sdk')) as never;
    } catch (error) {
      this.#messages = undefined;
      throw new MuxError(
        'NO_MODEL',
        `the Anthropic provider needs the package @anthropic-ai/sdk (an optional dependency of mcpmux; install it with npm install @anthropic-ai/sdk): ${(error as Error).message}`,
      );
    }
    const client = new sdk.default({
      apiKey: this.#settings.apiKey,
      ...(this.#settings.baseURL && { baseURL: this.#settings.baseURL }),
      maxRetries: 2,
    });
    return client.messages;
  }
}

function toAnthropicTool(tool: Tool): Record<string, unknown> {
  return {
    name: tool.name,
    ...(tool.description !== undefined && { description: tool.description }),
    input_schema: tool.inputSchema,
  };
}

function toAnthropic(message: SamplingMessage): Record<string, unknown> {
  const content = blocksOf(message.content).flatMap((block): Record<string, unknown>[] => {
    switch (block.type) {
      case 'text':
        return [{ type: 'text', text: block.text }];
      case 'image':
        return [imageBlock(block)];
      case 'tool_use':
        return [{ type: 'tool_use', id: block.id, name: block.name, input: block.input }];
      case 'tool_result':
        return [
          {
            type: 'tool_result',
            tool_use_id: block.toolUseId,
            content: block.content.map(resultBlock),
            ...(block.isError && { is_error: true }),
          },
        ];
      default:
        return [{ type: 'text', text: `[${block.type} content left out]` }];
    }
  });
  return { role: message.role, content };
}

function imageBlock(image: ImageContent): Record<string, unknown> {
  return { type: 'image', source: { type: 'base64', media_type: image.mimeType, data: image.data } };
}

/** What a tool returned, as the API takes it: text and images; anything else as its JSON. */
function resultBlock(block: ContentBlock): Record<string, unknown> {
  if (block.type === 'text') return { type: 'text', text: block.text };
  if (block.type === 'image') return imageBlock(block);
  return { type: 'text', text: JSON.stringify(block) };
}
