// The child's side of the forwarding fast path (fast-path.ts is the client's): the calls sent
// to one child generation, by the id mcpmux gave each (also its progress token), with their
// timeouts. Its transport offers it every message first; nothing else knows these ids.
// The module's binding, not the global: globalThis.performance is a lazy getter, read on every call here.
import { isUtf8 } from 'node:buffer';
import { performance } from 'node:perf_hooks';
import type { JSONRPCMessage, LoggingLevel } from '@modelcontextprotocol/server';
import type { InputOrigin } from '../child-types.js';
import { MuxError, messageOf, relayedError } from '../../common/errors.js';
import { childCallLine, isDigit } from '../../protocol/call-line.js';
import { IdTable, type Id } from '../../protocol/id-table.js';
import { ForwardedCall, callTimeoutError, plainError, type Params } from '../../protocol/forwarded-call.js';

export type { Id } from '../../protocol/id-table.js';
export interface ChildLaneOptions {
  /** The server's name, for the timeout's message. */
  server: string;
  /**
   * Writes a message to the child, waiting for nothing: a write to a child that died is
   * dropped, and its end (crash, removal) settles the call with the reason.
   */
  send: (message: JSONRPCMessage) => void;
  /** The same for a line already serialized (a tools/call spliced from the client's line). */
  sendLine: (line: string) => void;
  /** Why a call may not be sent now (the child's unread input is past its bound), or undefined. */
  refusal?: () => MuxError | undefined;
  /** --call-timeout: how long a call may go without an answer or progress. */
  callTimeoutMs: number;
  /** What the fast path must know of the child to choose (and shape) a call. */
  peer: {
    /** Whether it speaks 2026-07-28. */
    modern(): boolean;
    /** Whether it was told its client can be asked something (sampling, elicitation, roots). */
    mayAsk(): boolean;
    /**
     * A call the fast path carries for a client that declared none of that: until the
     * returned end is called, the child's questions are the caller's (and refused, saying
     * so), as a call on the SDK's path makes them.
     */
    callFor(origin: InputOrigin): () => void;
    /**
     * The level 2025 sessions want log messages at (ChildUpstream.sessionLogLevel): a
     * 2026-07-28 child is told it on each request, with the caller's own.
     */
    sessionLogLevel(): LoggingLevel | undefined;
  };
}

/**
 * One child generation's side: the calls sent to it, by the id it was given (which is also
 * the progress token it was given). Its transport offers it every message first (divert).
 */
export class ChildLane {
  readonly #options: ChildLaneOptions;
  /** By the number in the child's id (`mcpmux-<seq>`). */
  readonly #pending = new IdTable<ForwardedCall>();
  /**
   * The same calls in the order of their deadlines, linked through the calls (nothing is
   * allocated per call): every call of a lane has the same timeout, so a call goes to the end
   * when it starts and again when progress restarts it.
   */
  #first: ForwardedCall | undefined;
  #last: ForwardedCall | undefined;
  /** One timer for the lane, due at the first deadline: a call costs no timer of its own. */
  #sweep: NodeJS.Timeout | undefined;
  #next = 0;

  constructor(options: ChildLaneOptions) {
    this.#options = options;
  }

  get peer(): ChildLaneOptions['peer'] {
    return this.#options.peer;
  }

  /** Sends a call to the child under an id of this lane (never a number, so never one the SDK's client uses). */
  start(call: ForwardedCall, method: string, params: Params): void {
    if (this.#refused(call)) return;
    const childId = this.#take(call);
    if (call.progressToken !== undefined)
      params = { ...params, _meta: { ...(params['_meta'] as Params | undefined), progressToken: childId } };
    try {
      this.#options.send({ jsonrpc: '2.0', id: childId, method, params });
    } catch (error) {
      // A request that cannot be written (nested too deeply for JSON.stringify): answered now.
      this.#settle(call);
      call.answer(call.shaping.failure(new MuxError('INVALID_ARGUMENTS', messageOf(error))));
    }
  }

  /** The same for a tools/call whose arguments go on as the client wrote them (call-line.ts). */
  startCallLine(call: ForwardedCall, name: string, argumentsText: string): void {
    if (this.#refused(call)) return;
    this.#options.sendLine(childCallLine(this.#take(call), name, argumentsText));
  }

  /** Answers a call the child cannot be sent now (input-backlog.ts) with why; true if it did. */
  #refused(call: ForwardedCall): boolean {
    const refusal = this.#options.refusal?.();
    if (!refusal) return false;
    call.done();
    call.answer(call.shaping.failure(refusal));
    return true;
  }

  /** Makes the call this lane's: its child id, and its deadline. */
  #take(call: ForwardedCall): string {
    call.seq = ++this.#next;
    call.childId = LANE_ID_PREFIX + call.seq;
    call.lane = this;
    this.#arm(call);
    return call.childId;
  }

  /**
   * A line from the child (`bytes[start, end)`), before it is decoded: the result of a call
   * whose answer passes through is sent to the client with the client's id in place of the
   * lane's, its bytes never decoded or parsed (a large result costs a copy). Only the two ways
   * SDKs write a result are recognized, `{"result":…,"jsonrpc":"2.0","id":"mcpmux-N"}` (the
   * TypeScript SDK) and `{"jsonrpc":"2.0","id":"mcpmux-N","result":…}`; anything else is
   * parsed and goes through divert.
   */
  takeBytes(bytes: Buffer, start: number, end: number): boolean {
    const at = resultLineId(bytes, start, end);
    if (!at) return false;
    const call = this.#pending.get(at.seq);
    if (!call?.reply.pieces || !call.shaping.passThrough?.(end - start)) return false;
    // Bytes that are not UTF-8 (a server writing Latin-1) are decoded instead, each bad one
    // becoming U+FFFD: passed on, they broke a strict client's whole connection (the Python
    // SDK's reader raises on them), every server's with it.
    if (!isUtf8(bytes.subarray(start, end))) return false;
    this.#settle(call);
    call.reply.pieces([bytes.subarray(start, at.start), idJson(call.id), bytes.subarray(at.end, end)]);
    return true;
  }

  /** A message from the child: takes the answers and progress of this lane's calls. */
  divert(message: JSONRPCMessage, bytes: number): boolean {
    if (!('method' in message)) {
      const call = this.#pending.get(laneSeq(message.id));
      if (!call) return false;
      this.#settle(call);
      if ('error' in message) call.answer({ error: plainError(relayedError(message.error)) });
      else this.#answerResult(call, message.result as Params, bytes);
      return true;
    }
    if ('id' in message || message.method !== 'notifications/progress') return false;
    const params = message.params as { progressToken?: unknown } | undefined;
    const call = this.#pending.get(laneSeq(params?.progressToken));
    if (!call) return false;
    this.#arm(call);
    // A child may send progress under its request's id unasked: the client gets none it did not ask for.
    if (call.progressToken === undefined) return true;
    call.reply({
      jsonrpc: '2.0',
      method: 'notifications/progress',
      params: { ...params, progressToken: call.progressToken },
    } as JSONRPCMessage);
    return true;
  }

  /** The client cancelled the call (or went away): the child hears it under its own id. */
  cancel(call: ForwardedCall, reason: string): void {
    if (this.#pending.get(call.seq) !== call) return;
    this.#settle(call);
    this.#options.send({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: call.childId, reason },
    });
  }

  /** The generation ended (crash, removal, reload, shutdown): every call gets the reason at once. */
  end(error: MuxError): void {
    clearTimeout(this.#sweep);
    this.#sweep = undefined;
    for (let call = this.#first; call; call = this.#first) {
      this.#settle(call);
      call.answer(call.shaping.failure(error));
    }
  }

  /** (Re)starts the call's timeout: a call may go --call-timeout without an answer or progress. */
  #arm(call: ForwardedCall): void {
    call.deadline = performance.now() + this.#options.callTimeoutMs;
    if (this.#pending.get(call.seq) === call) this.#unlink(call);
    else this.#pending.set(call.seq, call);
    call.earlier = this.#last;
    if (this.#last) this.#last.later = call;
    else this.#first = call;
    this.#last = call;
    this.#sweep ??= this.#schedule(this.#options.callTimeoutMs);
  }

  #schedule(delayMs: number): NodeJS.Timeout {
    return setTimeout(() => this.#timeOutDue(), delayMs).unref();
  }

  /** Ends the calls whose deadline passed, and waits for the next deadline if a call is left. */
  #timeOutDue(): void {
    this.#sweep = undefined;
    const now = performance.now();
    for (let call = this.#first; call; call = this.#first) {
      if (call.deadline > now) {
        this.#sweep = this.#schedule(call.deadline - now);
        return;
      }
      this.#timedOut(call);
    }
  }

  #timedOut(call: ForwardedCall): void {
    this.cancel(call, 'timed out');
    call.answer(
      call.shaping.failure(callTimeoutError(this.#options.server, call.what, this.#options.callTimeoutMs)),
    );
  }

  #settle(call: ForwardedCall): void {
    this.#pending.delete(call.seq);
    this.#unlink(call);
    call.done();
  }

  /** Takes the call out of the deadline order, and leaves it pointing at no other call. */
  #unlink(call: ForwardedCall): void {
    if (call.earlier) call.earlier.later = call.later;
    else this.#first = call.later;
    if (call.later) call.later.earlier = call.earlier;
    else this.#last = call.earlier;
    call.earlier = call.later = undefined;
  }

  #answerResult(call: ForwardedCall, result: Params, bytes: number): void {
    const shaped = call.shaping.result(result, bytes);
    if (!(shaped instanceof Promise)) return call.answer({ result: shaped });
    shaped.then(
      (r) => call.answer({ result: r }),
      (error: unknown) => call.answer(call.shaping.failure(new MuxError('CHILD_ERROR', String(error)))),
    );
  }
}

const LANE_ID_PREFIX = 'mcpmux-';
/** What comes before a lane's number where the TypeScript SDK puts the id: last, after the result. */
const ID_SUFFIX = Buffer.from(',"jsonrpc":"2.0","id":"mcpmux-');
/** …and where the Python SDK puts it: first. */
const ID_PREFIX = Buffer.from('{"jsonrpc":"2.0","id":"mcpmux-');
// A result that is not an object (null, a string) is not passed through: it is answered as the
// malformed answer it is (answer-shape.ts).
const RESULT_FIRST = Buffer.from('{"result":{');
const RESULT_AFTER_ID = Buffer.from(',"result":{');
/** `"mcpmux-`: from an id's opening quote to its number. */
const QUOTED_PREFIX_LENGTH = LANE_ID_PREFIX.length + 1;
/** Longest lane number read: a lane counts far below 10^15, and beyond it a double loses digits. */
const MAX_SEQ_DIGITS = 15;

/**
 * Where the quoted id of a result line (`bytes[start, end)`) is (from its opening quote to
 * past its closing one) and the lane's number in it, if the line is a result with a lane's id
 * in one of the two places SDKs put it. The id is read only where it cannot be inside a
 * string or a nested object: right before the line's last brace (so it belongs to the outer
 * object) after a result that opened the line, or right after the outer object's first
 * member. Found by looking at those places, never by searching the line (a result may be
 * megabytes).
 */
export function resultLineId(
  bytes: Buffer,
  start: number,
  end: number,
): { start: number; end: number; seq: number } | undefined {
  if (hasAt(bytes, start, end, RESULT_FIRST)) {
    const last = end - 1;
    if (bytes[last] !== CLOSE_BRACE || bytes[last - 1] !== QUOTE) return undefined;
    let digits = last - 1;
    while (digits > start && isDigit(bytes[digits - 1]!)) digits--;
    const key = digits - ID_SUFFIX.length;
    if (key < start || !hasAt(bytes, key, end, ID_SUFFIX)) return undefined;
    const seq = digitsValue(bytes, digits, last - 1);
    return seq < 0 ? undefined : { start: digits - QUOTED_PREFIX_LENGTH, end: last, seq };
  }
  if (hasAt(bytes, start, end, ID_PREFIX) && bytes[end - 1] === CLOSE_BRACE) {
    const from = start + ID_PREFIX.length;
    const close = bytes.indexOf(QUOTE, from);
    const seq = close < 0 || close >= end ? -1 : digitsValue(bytes, from, close);
    if (seq < 0 || !hasAt(bytes, close + 1, end, RESULT_AFTER_ID)) return undefined;
    return { start: from - QUOTED_PREFIX_LENGTH, end: close + 1, seq };
  }
  return undefined;
}

/** Whether `bytes[at, end)` begins with `pattern`. */
function hasAt(bytes: Buffer, at: number, end: number, pattern: Buffer): boolean {
  if (end - at < pattern.length) return false;
  for (let i = 0; i < pattern.length; i++) if (bytes[at + i] !== pattern[i]) return false;
  return true;
}

/** The lane's number in an id or progress token this lane gave (`mcpmux-<n>`), or -1. */
function laneSeq(id: unknown): number {
  if (typeof id !== 'string' || !id.startsWith(LANE_ID_PREFIX)) return -1;
  return digitsValue(id, LANE_ID_PREFIX.length, id.length);
}

/** An id as JSON: a number's digits need no JSON.stringify (a call into the runtime on every answer). */
function idJson(id: Id): string {
  return typeof id === 'number' ? String(id) : JSON.stringify(id);
}

/** The lane number written in `text[from, to)` (bytes or a string): digits alone, no leading zero (numbers start at 1); else -1. */
function digitsValue(text: Buffer | string, from: number, to: number): number {
  if (to <= from || to - from > MAX_SEQ_DIGITS) return -1;
  let value = 0;
  for (let i = from; i < to; i++) {
    const c = typeof text === 'string' ? text.charCodeAt(i) : text[i]!;
    if (c === 0x30 && i === from) return -1;
    if (!isDigit(c)) return -1;
    value = value * 10 + (c - 0x30);
  }
  return value;
}

const QUOTE = 0x22;
const CLOSE_BRACE = 0x7d;
