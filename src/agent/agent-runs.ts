// Every sub-agent of this mcpmux: runs in the foreground (the caller waits) or in the
// background (read later with `output`), their ids, the limit on background runs, and
// resuming one from its history in memory or, after a restart, from its transcript. In a
// cluster, a run started through another replica is read, waited for, cancelled and resumed
// through this one (shared-runs.ts).
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { MuxError } from '../common/errors.js';
import type { Logger } from '../common/log.js';
import { AgentRun, type RunDeps, type RunLimits, type RunOutcome } from './agent-run.js';
import { blocksOf, type SamplingMessage, type ToolResultContent } from './model-source.js';
import type { RunElsewhere, SharedRuns } from './shared-runs.js';
import { AGENT_ID, TranscriptStore, type TranscriptLine } from './transcript.js';

export interface AgentRunsOptions {
  /** Where transcripts are kept. */
  dir: string;
  logger: Logger;
  /** Tool calls per run (--agent-max-tool-calls). */
  maxToolCalls: number;
  /** --agent-timeout. */
  timeoutMs: number;
  /** Background runs at once (--agent-concurrency). */
  concurrency: number;
}

export interface StartRequest {
  prompt: string;
  /** Continue this agent, with its whole history. */
  resume?: string | undefined;
  background: boolean;
  maxTurns: number;
  modelHint?: string | undefined;
  /** The model, the tools and the transcript of this run (record is filled in here). */
  deps: Omit<RunDeps, 'record'>;
  /** A foreground caller's cancellation. */
  signal?: AbortSignal | undefined;
}

/** What `output` says of one agent. */
export type AgentReport = {
  agentId: string;
  status: RunOutcome['status'] | 'running' | 'not_found';
} & Record<string, unknown>;

export interface AgentState {
  status: RunOutcome['status'] | 'running';
  /** Epoch milliseconds. */
  startedAt: number;
  updatedAt: number;
  outcome?: RunOutcome;
}

/** Finished runs kept in memory; older ones are read back from their transcripts. */
const KEPT_FINISHED = 200;
/** How often `output` looks again at a run on another replica it waits for. */
const ELSEWHERE_POLL_MS = 200;

export class AgentRuns {
  readonly transcripts: TranscriptStore;
  readonly #options: AgentRunsOptions;
  readonly #runs = new Map<string, AgentRun>();
  #shared: SharedRuns | undefined;

  constructor(options: AgentRunsOptions) {
    this.#options = options;
    this.transcripts = new TranscriptStore(options.dir, options.logger);
  }

  /** Starts (or resumes) an agent: a foreground run resolves with its outcome, a background one at once. */
  async start(request: StartRequest): Promise<Record<string, unknown>> {
    if (request.background && this.#backgroundCount() >= this.#options.concurrency)
      throw new MuxError(
        'AGENT_BUSY',
        `${this.#options.concurrency} background agents are running (--agent-concurrency); wait for one with output, cancel one, or run this one in the foreground`,
      );
    const { id, history, earlierToolUses } = request.resume
      ? await this.#resumable(request.resume)
      : { id: await this.#newId(), history: [], earlierToolUses: 0 };
    const limits: RunLimits = {
      maxTurns: request.maxTurns,
      maxToolCalls: this.#options.maxToolCalls + earlierToolUses,
      timeoutMs: this.#options.timeoutMs,
    };
    const run = new AgentRun({
      id,
      prompt: request.prompt,
      background: request.background,
      history,
      earlierToolUses,
      limits,
      modelHint: request.modelHint,
      signal: request.background ? undefined : request.signal,
      deps: { ...request.deps, record: (type, content) => this.transcripts.append(id, type, content) },
    });
    this.#runs.delete(id);
    this.#runs.set(id, run);
    const announced = this.#shared?.announce(id, run.startedAt, {
      progress: () => ({ toolUseCount: run.toolUseCount }),
      cancel: () => run.cancel(),
    });
    void run.done.then(() => {
      announced?.ended();
      this.#forgetOld();
    });
    // Said to the other replicas before the caller hears of it: its next `output` may land on any.
    await announced?.ready;
    if (request.background)
      return {
        status: 'async_launched',
        agentId: id,
        description: describe(request.prompt),
        prompt: request.prompt,
      };
    const outcome = await run.done;
    return { agentId: id, ...outcome };
  }

  /** Reports on agents; with block, waits until all are done or waitMs passes; with cancel, stops them first. */
  async output(
    ids: readonly string[],
    options: { block: boolean; waitMs: number; cancel: boolean },
  ): Promise<AgentReport[]> {
    const started = Date.now();
    if (options.cancel)
      for (const id of ids) if (!this.cancel(id)) await this.#shared?.cancel(id).catch(() => false);
    const running = ids.flatMap((id) => {
      const run = this.#runs.get(id);
      return run && run.status === 'running' ? [run.done] : [];
    });
    if ((options.block || options.cancel) && running.length > 0) {
      let timer: NodeJS.Timeout | undefined;
      // A cancelled run settles as soon as its model turn or tool call in flight gives up.
      const wait = options.cancel ? Math.max(options.waitMs, 5000) : options.waitMs;
      await Promise.race([
        Promise.all(running),
        new Promise((resolve) => (timer = setTimeout(resolve, wait))),
      ]);
      clearTimeout(timer);
    }
    if (options.block || options.cancel) {
      const wait = options.cancel ? Math.max(options.waitMs, 5000) : options.waitMs;
      await this.#settledElsewhere(ids, started + wait);
    }
    return Promise.all(ids.map((id) => this.#report(id)));
  }

  /** Kept for, and following, the other replicas of a cluster (undefined: this mcpmux alone). */
  share(shared: SharedRuns | undefined): void {
    this.#shared = shared;
    this.transcripts.share(shared);
  }

  /** Where an agent is now, for MCP tasks: undefined when it is nowhere. */
  async state(id: string): Promise<AgentState | undefined> {
    const run = this.#runs.get(id);
    if (run)
      return {
        status: run.status,
        startedAt: run.startedAt,
        updatedAt: run.outcome ? run.startedAt + run.outcome.totalDurationMs : Date.now(),
        ...(run.outcome && { outcome: run.outcome }),
      };
    if (!AGENT_ID.test(id)) return undefined;
    const elsewhere = await this.#elsewhere(id);
    if (elsewhere) return { status: 'running', startedAt: elsewhere.startedAt, updatedAt: Date.now() };
    const lines = await this.transcripts.read(id);
    if (!lines) return undefined;
    const outcome = outcomeOf(lines);
    const startedAt = Date.parse(lines.find((l) => l.type === 'user')?.timestamp ?? '') || Date.now();
    return { status: outcome.status, startedAt, updatedAt: startedAt + outcome.totalDurationMs, outcome };
  }

  /** The outcome of an agent, once it has one (waits for a running one). */
  async outcome(id: string): Promise<RunOutcome | undefined> {
    const run = this.#runs.get(id);
    if (run) return run.done;
    return (await this.state(id))?.outcome;
  }

  /** Stops a running agent; false when it is not running here. */
  cancel(id: string): boolean {
    const run = this.#runs.get(id);
    if (run?.status !== 'running') return false;
    run.cancel();
    return true;
  }

  /** Cancels every run (mcpmux is stopping); resolves when they have ended. */
  async close(): Promise<void> {
    const running = [...this.#runs.values()].filter((run) => run.status === 'running');
    for (const run of running) run.cancel();
    await Promise.all(running.map((run) => run.done));
  }

  async #report(id: string): Promise<AgentReport> {
    const run = this.#runs.get(id);
    // Not running here: it may run on another replica (started there, or resumed there since).
    const elsewhere = run?.status !== 'running' && AGENT_ID.test(id) ? await this.#elsewhere(id) : undefined;
    if (elsewhere)
      return {
        agentId: id,
        status: 'running',
        replica: elsewhere.replica,
        totalToolUseCount: elsewhere.toolUseCount,
        runningForMs: Date.now() - elsewhere.startedAt,
      };
    if (run) {
      if (run.status === 'running')
        return {
          agentId: id,
          status: 'running',
          totalToolUseCount: run.toolUseCount,
          runningForMs: Date.now() - run.startedAt,
        };
      // In a cluster, the run may have been resumed, and ended again, on another replica since.
      const lines = this.#shared ? await this.transcripts.read(id) : undefined;
      const ended = lines?.at(-1)?.type === 'result' ? outcomeOf(lines) : run.outcome!;
      return { agentId: id, ...ended } as AgentReport;
    }
    if (!AGENT_ID.test(id)) return { agentId: id, status: 'not_found' };
    const lines = await this.transcripts.read(id);
    if (!lines) return { agentId: id, status: 'not_found' };
    return { agentId: id, ...outcomeOf(lines) } as AgentReport;
  }

  /** An agent's history, to go on from; refused while it runs, and when it is nowhere. */
  async #resumable(id: string): Promise<{ id: string; history: SamplingMessage[]; earlierToolUses: number }> {
    const run = this.#runs.get(id);
    if (run?.status === 'running')
      throw new MuxError('AGENT_BUSY', `agent ${id} is still running; wait for it with output, or cancel it`);
    const elsewhere = AGENT_ID.test(id) ? await this.#elsewhere(id) : undefined;
    if (elsewhere)
      throw new MuxError(
        'AGENT_BUSY',
        `agent ${id} is still running on replica ${elsewhere.replica}; wait for it with output, or cancel it`,
      );
    const lines = AGENT_ID.test(id) ? await this.transcripts.read(id) : undefined;
    if (run && !lines) {
      // Its transcript could not be written: the history in memory is all there is.
      return { id, history: closed([...run.history]), earlierToolUses: run.toolUseCount };
    }
    if (!lines)
      throw new MuxError(
        'AGENT_NOT_FOUND',
        `no agent '${id}' (an id is 8 hex characters, as agent returned it; transcripts are kept in ${this.#options.dir})`,
      );
    return { id, history: historyOf(lines), earlierToolUses: toolUsesIn(lines) };
  }

  async #newId(): Promise<string> {
    for (;;) {
      const id = randomBytes(4).toString('hex');
      if (!this.#runs.has(id) && !(await this.transcripts.read(id))) return id;
    }
  }

  /** Where `id` runs in the cluster, if on another replica; Redis out of reach: not known to run. */
  async #elsewhere(id: string): Promise<RunElsewhere | undefined> {
    return this.#shared?.elsewhere(id).catch(() => undefined);
  }

  /** Waits until none of `ids` runs on another replica, or until `deadline`. */
  async #settledElsewhere(ids: readonly string[], deadline: number): Promise<void> {
    const others = ids.filter((id) => this.#runs.get(id)?.status !== 'running' && AGENT_ID.test(id));
    if (!this.#shared || others.length === 0) return;
    for (;;) {
      const still = await Promise.all(others.map((id) => this.#elsewhere(id)));
      if (still.every((e) => e === undefined) || Date.now() >= deadline) return;
      await sleep(Math.min(ELSEWHERE_POLL_MS, Math.max(0, deadline - Date.now())));
    }
  }

  #backgroundCount(): number {
    let count = 0;
    for (const run of this.#runs.values()) if (run.status === 'running' && run.background) count++;
    return count;
  }

  #forgetOld(): void {
    const finished = [...this.#runs.values()].filter((run) => run.status !== 'running');
    for (const run of finished.slice(0, Math.max(0, finished.length - KEPT_FINISHED)))
      this.#runs.delete(run.id);
  }
}

/** The first line of a prompt, short: how a background run is named. */
function describe(prompt: string): string {
  const line = prompt.trim().split('\n')[0] ?? '';
  return line.length <= 60 ? line : `${line.slice(0, 59)}…`;
}

function toolUsesIn(lines: readonly TranscriptLine[]): number {
  return lines
    .filter((line) => line.type === 'tool_result')
    .reduce((sum, line) => sum + (Array.isArray(line.content) ? line.content.length : 0), 0);
}

/** How a run read from disk ended; a transcript without a result line was cut short by a stop of mcpmux. */
function outcomeOf(lines: readonly TranscriptLine[]): RunOutcome {
  const last = lines.at(-1);
  if (last?.type === 'result' && typeof last.content === 'object' && last.content !== null)
    return last.content as RunOutcome;
  const first = lines.find((line) => line.type === 'user');
  const started = first ? Date.parse(first.timestamp) : NaN;
  return {
    status: 'failed',
    error: 'mcpmux stopped before this run finished; resume it to go on',
    totalToolUseCount: toolUsesIn(lines),
    totalDurationMs: last && !Number.isNaN(started) ? Date.parse(last.timestamp) - started : 0,
  };
}

/** The conversation a transcript holds, as the model takes it again. */
export function historyOf(lines: readonly TranscriptLine[]): SamplingMessage[] {
  const history: SamplingMessage[] = [];
  for (const line of lines) {
    if (line.type === 'user' && typeof line.content === 'string') {
      closed(history);
      history.push({ role: 'user', content: { type: 'text', text: line.content } });
    } else if (line.type === 'assistant' && Array.isArray(line.content)) {
      history.push({ role: 'assistant', content: line.content });
    } else if (line.type === 'tool_result' && Array.isArray(line.content)) {
      history.push({ role: 'user', content: line.content });
    }
  }
  return closed(history);
}

/**
 * Makes a history safe to go on from: a tool call left without its result (the run stopped
 * there) gets one that says so, and a history that ends on results gets the model's turn
 * back, so that the next user message does not follow another.
 */
function closed(history: SamplingMessage[]): SamplingMessage[] {
  const last = history.at(-1);
  if (!last) return history;
  if (last.role === 'assistant') {
    const pending = blocksOf(last.content).filter((b) => b.type === 'tool_use');
    if (pending.length > 0)
      history.push({
        role: 'user',
        content: pending.map((use): ToolResultContent => ({
          type: 'tool_result',
          toolUseId: (use as { id: string }).id,
          content: [{ type: 'text', text: 'not run: the run stopped before this call' }],
          isError: true,
        })),
      });
  }
  if (history.at(-1)!.role === 'user')
    history.push({ role: 'assistant', content: { type: 'text', text: '(the run stopped here)' } });
  return history;
}
