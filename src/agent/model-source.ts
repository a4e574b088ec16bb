// Where a sub-agent's turns come from, behind one small interface: the client's own model
// through MCP sampling (sampling-model.ts), or a provider's API (anthropic-model.ts). The
// history is kept in MCP's sampling shape (text, tool_use and tool_result blocks), which
// each source translates as it needs.
import type {
  SamplingMessage,
  TextContent,
  Tool,
  ToolResultContent,
  ToolUseContent,
} from '@modelcontextprotocol/server';

export type { SamplingMessage, ToolResultContent, ToolUseContent };

/** What a model answers with: words and tool calls. */
export type TurnBlock = TextContent | ToolUseContent;

export interface TurnRequest {
  system: string;
  messages: readonly SamplingMessage[];
  /** The tools the sub-agent may call (exposed names, descriptions, input schemas). */
  tools: readonly Tool[];
  maxTokens: number;
  /** The caller's model hint (sampling's modelPreferences.hints, or the provider's model name). */
  model?: string | undefined;
}

export interface Usage {
  inputTokens: number;
  outputTokens: number;
}

export interface Turn {
  content: TurnBlock[];
  stopReason?: string | undefined;
  /** The model that answered, when the source says. */
  model?: string | undefined;
  usage?: Usage | undefined;
}

export interface ModelSource {
  /** `sampling` (the client's model) or the provider's name; shown in results. */
  readonly name: string;
  next(request: TurnRequest, signal: AbortSignal): Promise<Turn>;
}

/** The blocks of a message, whether it holds one or a list. */
export function blocksOf<T>(content: T | readonly T[]): T[] {
  return Array.isArray(content) ? [...(content as readonly T[])] : [content as T];
}
