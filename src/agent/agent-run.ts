// One sub-agent at work: ask the model, run the tools it asks for through mcpmux's own
// routing, give it their results, until it answers in words or a limit is reached. Every
// message is written to the transcript before the run moves on, so a run can be read and
// resumed after mcpmux restarted.
import { telemetry } from '../common/telemetry.js';
import type { CallToolResult, TextContent, Tool } from '@modelcontextprotocol/server';
import { messageOf } from '../common/errors.js';
import type {
  ModelSource,
  SamplingMessage,
  ToolResultContent,
  ToolUseContent,
  Turn,
  Usage,
} from './model-source.js';
import type { TranscriptType } from './transcript.js';

export interface RunLimits {
  maxTurns: number;
  /** Tool calls in the whole run (resumed parts included). */
  maxToolCalls: number;
  timeoutMs: number;
}

export interface RunDeps {
  model: ModelSource;
  /** The tools the sub-agent may call now (servers come and go while it runs). */
  tools: () => Tool[];
  /** Calls an exposed tool through mcpmux; throws for what is not the tool's own error. */
  callTool: (name: string, args: Record<string, unknown>, signal: AbortSignal) => Promise<CallToolResult>;
  /** Appends to the transcript. */
  record: (type: TranscriptType, content: unknown) => Promise<void>;
  /** Progress for the caller: a running count and what happens now. */
  onprogress?: ((progress: number, message: string) => void) | undefined;
}

export type RunStatus = 'running' | 'completed' | 'failed' | 'cancelled';

/** How a run ended, as `agent` and `output` report it (and as the transcript's result line keeps it). */
export interface RunOutcome {
  status: Exclude<RunStatus, 'running'>;
  /** completed: the sub-agent's final words. */
  content?: TextContent[];
  /** failed: why. */
  error?: string;
  /** failed and cancelled: the tool calls it made, with their key arguments. */
  toolCalls?: string[];
  totalToolUseCount: number;
  totalDurationMs: number;
  usage?: Usage;
}

const SYSTEM_PROMPT = [
  'You are a sub-agent: another agent gave you the task below and sees only your final answer.',
  'Do the task with the tools you have (each is <server>__<tool>). Call tools as needed; check what they return.',
  'When you are done, answer in words with everything the caller needs: what you found or did, and what failed.',
  'Do not ask questions: nobody will answer them. If the task cannot be done, say why.',
].join(' ');

/** Turn budget of one reply from the model. */
const MAX_TOKENS = 8192;

export class AgentRun {
  readonly id: string;
  readonly prompt: string;
  /** Started with run_in_background (counted against --agent-concurrency). */
  readonly background: boolean;
  readonly startedAt = Date.now();
  status: RunStatus = 'running';
  outcome: RunOutcome | undefined;
  /** The whole conversation, earlier runs of a resumed agent included. */
  readonly history: SamplingMessage[];
  readonly #limits: RunLimits;
  readonly #deps: RunDeps;
  readonly #modelHint: string | undefined;
  readonly #cancel = new AbortController();
  readonly #toolCalls: string[] = [];
  #toolUseCount: number;
  #progress = 0;
  #usage: Usage | undefined;
  /** Settles with the outcome; never rejects. */
  readonly done: Promise<RunOutcome>;

  constructor(options: {
    id: string;
    prompt: string;
    background: boolean;
    history: SamplingMessage[];
    /** Tool calls made by earlier runs of this agent (they count against the limit). */
    earlierToolUses: number;
    limits: RunLimits;
    deps: RunDeps;
    modelHint?: string | undefined;
    /** The caller's cancellation (a foreground call's). */
    signal?: AbortSignal | undefined;
  }) {
    this.id = options.id;
    this.prompt = options.prompt;
    this.background = options.background;
    this.history = options.history;
    this.#limits = options.limits;
    this.#deps = options.deps;
    this.#modelHint = options.modelHint;
    this.#toolUseCount = options.earlierToolUses;
    const timeout = AbortSignal.timeout(options.limits.timeoutMs);
    const signal = AbortSignal.any([
      this.#cancel.signal,
      timeout,
      ...(options.signal ? [options.signal] : []),
    ]);
    // A run stopped by its own clock failed; one stopped by a cancel (output's or the caller's) was cancelled.
    const timedOut = () => timeout.aborted && !this.#cancel.signal.aborted && !options.signal?.aborted;
    // The run's span (GenAI's invoke_agent), its turns and tool calls under it.
    const run = telemetry.enabled
      ? telemetry.internal(
          'invoke_agent mcpmux',
          {
            'gen_ai.operation.name': 'invoke_agent',
            'gen_ai.agent.name': 'mcpmux',
            'gen_ai.agent.id': this.id,
          },
          () => this.#run(signal),
        )
      : this.#run(signal);
    this.done = run.catch((error: unknown) => {
      if (!signal.aborted) return this.#end('failed', { error: messageOf(error) });
      if (!timedOut()) return this.#end('cancelled', {});
      return this.#end('failed', {
        error: `the run passed --agent-timeout (${options.limits.timeoutMs / 1000} s) and was stopped`,
      });
    });
  }

  get toolUseCount(): number {
    return this.#toolUseCount;
  }

  /** Stops the run and its tool call in flight. */
  cancel(): void {
    this.#cancel.abort(new Error('cancelled'));
  }

  async #run(signal: AbortSignal): Promise<RunOutcome> {
    this.history.push({ role: 'user', content: { type: 'text', text: this.prompt } });
    await this.#deps.record('user', this.prompt);
    for (let turn = 1; turn <= this.#limits.maxTurns; turn++) {
      signal.throwIfAborted();
      const reply = await this.#ask(turn, signal);
      signal.throwIfAborted();
      this.#addUsage(reply.usage);
      this.#report(`turn ${turn}: the model answered${reply.model ? ` (${reply.model})` : ''}`);
      this.history.push({ role: 'assistant', content: reply.content });
      await this.#deps.record('assistant', reply.content);
      const uses = reply.content.filter((b): b is ToolUseContent => b.type === 'tool_use');
      if (uses.length === 0) {
        const words = reply.content.filter(
          (b): b is TextContent => b.type === 'text' && b.text.trim() !== '',
        );
        return this.#end('completed', {
          content: words.length > 0 ? words : [{ type: 'text', text: '(the sub-agent ended without words)' }],
        });
      }
      const { results, limitHit } = await this.#useTools(uses, signal);
      this.history.push({ role: 'user', content: results });
      await this.#deps.record('tool_result', results);
      if (limitHit)
        return this.#end('failed', {
          error: `reached the limit of ${this.#limits.maxToolCalls} tool calls (--agent-max-tool-calls) before a final answer`,
        });
    }
    return this.#end('failed', {
      error: `reached max_turns (${this.#limits.maxTurns}) before a final answer; resume it with a higher max_turns to go on`,
    });
  }

  /** The model's next turn, in a span of its own (the conventions' `chat {model}`). */
  #ask(turn: number, signal: AbortSignal): Promise<Turn> {
    const ask = () =>
      this.#deps.model.next(
        {
          system: SYSTEM_PROMPT,
          messages: this.history,
          tools: this.#deps.tools(),
          maxTokens: MAX_TOKENS,
          model: this.#modelHint,
        },
        signal,
      );
    if (!telemetry.enabled) return ask();
    const attributes = {
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': this.#modelHint,
      'mcpmux.agent.turn': turn,
    };
    return telemetry.internal(`chat ${this.#modelHint ?? 'model'}`, attributes, async (span) => {
      const answered = await ask();
      span.set({
        'gen_ai.response.model': answered.model,
        'gen_ai.usage.input_tokens': answered.usage?.inputTokens,
        'gen_ai.usage.output_tokens': answered.usage?.outputTokens,
      });
      return answered;
    });
  }

  /** The turn's tool uses, in order, until the run's limit of tool calls: the rest are answered "not run". */
  async #useTools(
    uses: ToolUseContent[],
    signal: AbortSignal,
  ): Promise<{ results: ToolResultContent[]; limitHit: boolean }> {
    const results: ToolResultContent[] = [];
    let limitHit = false;
    for (const use of uses) {
      if (limitHit || this.#toolUseCount >= this.#limits.maxToolCalls) {
        limitHit = true;
        results.push(errorResult(use.id, 'not run: the run reached its limit of tool calls'));
        continue;
      }
      results.push(await this.#use(use, signal));
    }
    return { results, limitHit };
  }

  async #use(use: ToolUseContent, signal: AbortSignal): Promise<ToolResultContent> {
    this.#toolUseCount++;
    const call = describeCall(use);
    this.#toolCalls.push(call);
    this.#report(call);
    try {
      const call = () => this.#deps.callTool(use.name, use.input ?? {}, signal);
      const result = telemetry.enabled
        ? await telemetry.internal(
            `execute_tool ${use.name}`,
            {
              'gen_ai.operation.name': 'execute_tool',
              'gen_ai.tool.name': use.name,
              'gen_ai.tool.call.id': use.id,
            },
            async (span) => {
              const answered = await call();
              if (answered.isError) span.fail('tool_error');
              return answered;
            },
          )
        : await call();
      return {
        type: 'tool_result',
        toolUseId: use.id,
        content: result.content ?? [],
        ...(result.isError && { isError: true }),
      };
    } catch (error) {
      signal.throwIfAborted();
      return errorResult(use.id, messageOf(error));
    }
  }

  #addUsage(usage: Usage | undefined): void {
    if (!usage) return;
    this.#usage = {
      inputTokens: (this.#usage?.inputTokens ?? 0) + usage.inputTokens,
      outputTokens: (this.#usage?.outputTokens ?? 0) + usage.outputTokens,
    };
  }

  #report(message: string): void {
    this.#deps.onprogress?.(++this.#progress, message);
  }

  async #end(status: RunOutcome['status'], fields: Partial<RunOutcome>): Promise<RunOutcome> {
    const outcome: RunOutcome = {
      status,
      ...fields,
      ...(status !== 'completed' && { toolCalls: [...this.#toolCalls] }),
      totalToolUseCount: this.#toolUseCount,
      totalDurationMs: Date.now() - this.startedAt,
      ...(this.#usage && { usage: this.#usage }),
    };
    this.status = status;
    this.outcome = outcome;
    // The outcome stands even if the disk does not take it; output then reads it from memory.
    await this.#deps.record('result', outcome).catch(() => {});
    return outcome;
  }
}

function errorResult(toolUseId: string, message: string): ToolResultContent {
  return { type: 'tool_result', toolUseId, content: [{ type: 'text', text: message }], isError: true };
}

/** Arguments that say what a call does, in the order they are looked for. */
const KEY_ARGUMENTS = [
  'prompt',
  'query',
  'url',
  'path',
  'file_path',
  'name',
  'command',
  'pattern',
  'id',
  'message',
];

/** `server__tool path=/x query="…"`: a tool call named with its key arguments, each cut at 80 characters. */
export function describeCall(use: { name: string; input?: Record<string, unknown> }): string {
  const input = use.input ?? {};
  const keys = KEY_ARGUMENTS.filter((key) => input[key] !== undefined);
  const shown = (keys.length > 0 ? keys : Object.keys(input).slice(0, 1)).map((key) => {
    const value = input[key];
    const text = typeof value === 'string' ? value : JSON.stringify(value);
    return `${key}=${cut(text ?? String(value), 80)}`;
  });
  return [use.name, ...shown].join(' ');
}

function cut(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ');
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}
