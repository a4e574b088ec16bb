// A call to a 2025-era child, held open across the rounds of a 2026-07-28 client. The child
// asks its client by sending requests in the middle of the call (elicitation, sampling,
// roots); a modern client is asked by an input_required result and answers by calling again.
// So the call stays in flight here: what the child asks is collected into a round, the
// client's answers are handed back to the child's waiting requests, and the next round (more
// questions, or the call's result) goes out on the client's next request.
import { randomBytes } from 'node:crypto';
import type { ClientCapabilities, Progress } from '@modelcontextprotocol/server';
import type { InputOrigin, JSONRPCRequestLike } from '../../child/child-types.js';
import type { RequestLogs } from '../../child/requests/request-logs.js';
import { MuxError } from '../../common/errors.js';

/** How long a round waits for requests the child sends together, so they reach the client as one. */
const GATHER_MS = 15;

/** The key prefix of an input request, by its method: the client sees what it is asked for. */
const KEY_PREFIX: Readonly<Record<string, string>> = {
  'elicitation/create': 'elicitation',
  'sampling/createMessage': 'sampling',
  'roots/list': 'roots',
};

interface Question {
  request: JSONRPCRequestLike;
  resolve: (answer: Record<string, unknown>) => void;
  reject: (error: unknown) => void;
}

type Outcome = { ok: true; value: Record<string, unknown> } | { ok: false; error: unknown };

export type Round =
  | { kind: 'done'; result: Record<string, unknown> }
  | { kind: 'input'; inputRequests: Record<string, JSONRPCRequestLike> };

export type HeldRun = (
  origin: InputOrigin,
  signal: AbortSignal,
  onprogress: (progress: Progress) => void,
) => Promise<Record<string, unknown>>;

export class HeldCall implements InputOrigin {
  #id: string | undefined;
  /** What the client declared on the request being served now (the child's requests are checked against it). */
  capabilities: ClientCapabilities | undefined;
  /** Where the child's progress goes: the request being served now. */
  onprogress: ((progress: Progress) => void) | undefined;
  /** What the request being served now asked to hear of the child's log messages (request-logs.ts). */
  logs: RequestLogs | undefined;
  readonly #abort = new AbortController();
  #outcome: Outcome | undefined;
  /** Asked by the child, not yet put to the client. */
  readonly #asked = new Map<string, Question>();
  /** Put to the client, not yet answered. */
  readonly #open = new Map<string, Question>();
  #count = 0;
  #rounds = 0;
  #wake: (() => void) | undefined;

  constructor(run: HeldRun, capabilities: ClientCapabilities | undefined) {
    this.capabilities = capabilities;
    run(this, this.#abort.signal, (progress) => this.onprogress?.(progress)).then(
      (value) => this.#settle({ ok: true, value }),
      (error: unknown) => this.#settle({ ok: false, error }),
    );
  }

  /** 128 random bits: the key a retry's requestState names (made once the call is held). */
  get id(): string {
    return (this.#id ??= randomBytes(16).toString('base64url'));
  }

  /** How many rounds of questions went to the client so far. */
  get rounds(): number {
    return this.#rounds;
  }

  /** A request of the child during the call: it waits for the client's answer in a later round. */
  ask(request: JSONRPCRequestLike, signal: AbortSignal): Promise<Record<string, unknown>> {
    const key = `${KEY_PREFIX[request.method] ?? 'input'}_${++this.#count}`;
    return new Promise((resolve, reject) => {
      this.#asked.set(key, { request, resolve, reject });
      signal.addEventListener(
        'abort',
        () => {
          this.#asked.delete(key);
          this.#open.delete(key);
          reject(signal.reason);
        },
        { once: true },
      );
      this.#wake?.();
    });
  }

  /** The client's answers (keyed as it was asked); a question it left out is put again next round. */
  answer(responses: Readonly<Record<string, unknown>>): void {
    for (const [key, question] of this.#open) {
      const response = responses[key];
      if (response === undefined) continue;
      this.#open.delete(key);
      question.resolve(response as Record<string, unknown>);
    }
  }

  /**
   * The next round for the client: the call's result, or what the child asks now. Waits while
   * the child works; `signal` is the client's request, whose end gives up the whole call.
   */
  async next(signal: AbortSignal): Promise<Round> {
    let unanswered = this.#open.size > 0;
    for (;;) {
      if (this.#outcome) return this.#finish();
      if (this.#asked.size > 0 || unanswered) {
        // Requests sent together (and the child's reaction to partial answers) arrive within moments.
        await this.#quiet(signal);
        if (this.#outcome) return this.#finish();
        if (this.#asked.size > 0 || this.#open.size > 0) {
          for (const [key, question] of this.#asked) this.#open.set(key, question);
          this.#asked.clear();
          this.#rounds++;
          return {
            kind: 'input',
            inputRequests: Object.fromEntries([...this.#open].map(([key, q]) => [key, q.request])),
          };
        }
        unanswered = false;
      }
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
        signal.addEventListener('abort', () => resolve(), { once: true });
      });
      this.#wake = undefined;
      if (signal.aborted) {
        this.cancel(
          new MuxError('CALL_CANCELLED', 'the client ended its request, so the call was cancelled'),
        );
        throw signal.reason;
      }
    }
  }

  /** Gives the call up: the child hears it cancelled, and its open questions fail. */
  cancel(reason: MuxError): void {
    if (!this.#abort.signal.aborted) this.#abort.abort(reason);
    this.#dropQuestions(reason);
  }

  #dropQuestions(reason: MuxError): void {
    for (const question of [...this.#asked.values(), ...this.#open.values()]) question.reject(reason);
    this.#asked.clear();
    this.#open.clear();
  }

  #settle(outcome: Outcome): void {
    this.#outcome = outcome;
    this.#wake?.();
  }

  #finish(): Round {
    const outcome = this.#outcome!;
    // The call ended with questions still open (the child did not wait for them): nothing to answer.
    if (this.#asked.size > 0 || this.#open.size > 0)
      this.#dropQuestions(new MuxError('CALL_CANCELLED', 'the call already ended'));
    if (!outcome.ok) throw outcome.error;
    return { kind: 'done', result: outcome.value };
  }

  /** Waits until nothing new has happened for GATHER_MS (or the call ended, or the request did). */
  async #quiet(signal: AbortSignal): Promise<void> {
    for (;;) {
      const before = this.#count;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, GATHER_MS);
        this.#wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.#wake = undefined;
      if (this.#outcome || signal.aborted || this.#count === before) return;
    }
  }
}
