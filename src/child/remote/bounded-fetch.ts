// The bound on one message from a remote (HTTP) server, as --max-message-bytes bounds a
// stdio child's lines. The SDK reads a JSON answer whole, and an SSE event whole, before it
// looks at either: a server answering with gigabytes (a bug, or a hostile server) would take
// mcpmux's memory, and every other server with it. The fetch given to the SDK's transports
// counts instead:
// - a body that is not an event stream (a JSON answer, an error page) fails past the bound,
//   and the call it answers fails at once with the reason;
// - an event stream is passed on event by event; an event past the bound is skipped to its
//   end, and when it was an answer, an error answer with its id takes its place. Failing the
//   stream instead would leave the call waiting for its timeout: the SDK resumes a cut
//   stream (which sends the event again) or gives it up without failing the call. An event
//   that goes on past the bound again (SKIP_BYTES) is a flood: its stream is closed, each
//   request still owed an answer on it given an error answer first, so that the SDK neither
//   waits nor resumes. Every byte skipped costs memory until the runtime collects it, and
//   Node 24 lets a fetch body's chunks pile to ~100 MB first (Node 20 and 22: ~35 MB).
// And a small answer (a JSON body or an event under ANSWER_CHECK_BYTES) that JSON-RPC does
// not allow, such as an error without a code, is replaced by the error answer that stands for
// it (answer-shape.ts): the SDK drops such an event, and the call waited for its timeout, or
// fails the whole body with zod's issues as raw JSON. A successful answer to requests that
// holds no JSON-RPC at all (a status object, a web page: not the server's MCP endpoint) is
// replaced the same way, by an error answer for each request, saying what came instead. An
// event stream that ends owing the POST's requests their answers, with no event id to resume
// it by, brings an error answer for each (owed-answers.ts); a JSON body is read by json-body.ts.
import type { Transformer } from 'node:stream/web';
import type { FetchLike } from '@modelcontextprotocol/client';
import { WireError } from '../../common/errors.js';
import { firstBytes, lastBytes, trailingId } from '../../protocol/envelope-peek.js';
import { PARSE_ERROR, oversizeReason } from '../../protocol/json-line-reader.js';
import { answersInstead, wellFormedBody, wellFormedEvent } from '../../protocol/answer-shape.js';
import { eventHead, type EventHead } from '../../protocol/sse-event.js';
import { jsonLines, readJson } from './json-body.js';
import { OwedAnswers } from './owed-answers.js';

export interface MessageBound {
  /** Largest message taken, in bytes. */
  limit: number;
  /** Told once for each message dropped, with the reason. */
  onDropped: (why: string) => void;
}

/** `inner` with every response body held to the bound. */
export function boundedFetch(inner: FetchLike, bound: MessageBound): FetchLike {
  const why = oversizeReason(bound.limit, 'the server');
  return async (input, init) => {
    const response = await inner(input, init);
    // A redirect keeps its own response: the SDK reads where it points from it (url, type).
    if (!response.body || (response.status >= 300 && response.status < 400)) return response;
    const type = mediaType(response.headers.get('content-type'));
    const ids = () => requestIds(init?.body);
    // A success in a type the SDK does not read (a web page): it would say only "Unexpected content type".
    if (response.ok && type !== 'text/event-stream' && type !== 'application/json') {
      const waiting = ids();
      if (waiting.length > 0) return answeredInstead(response, type, waiting, bound);
    }
    const body =
      type === 'text/event-stream'
        ? response.body.pipeThrough(eventStreamBound(bound, why, ids))
        : response.body.pipeThrough(wholeBodyBound(bound, why, response.ok ? ids : () => []));
    const bounded = new Response(body, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
    Object.defineProperties(bounded, {
      url: { value: response.url },
      redirected: { value: response.redirected },
      ...(response.ok && type !== 'text/event-stream' && { json: { value: () => readJson(bounded) } }),
    });
    return bounded;
  };
}

/** Answers this small or smaller are checked for their shape; errors are small, results need not be. */
const ANSWER_CHECK_BYTES = 64 * 1024;

/**
 * A successful answer to requests in a type that is not JSON-RPC's: its first bytes, read, and
 * in its place error answers saying what came (answersInstead), in JSON.
 */
async function answeredInstead(
  response: Response,
  type: string,
  ids: (string | number)[],
  bound: MessageBound,
): Promise<Response> {
  const text = await firstText(response, ANSWER_CHECK_BYTES);
  const replaced = answersInstead(text, type, () => ids);
  if (!replaced) return new Response(text, { status: response.status, headers: response.headers });
  bound.onDropped(replaced.why);
  return new Response(replaced.text, {
    status: response.status,
    headers: { 'content-type': 'application/json' },
  });
}

/** Up to `max` bytes of a body as text; the rest is not read. */
async function firstText(response: Response, max: number): Promise<string> {
  const reader = response.body!.getReader();
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  while (bytes < max) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    bytes += value.byteLength;
  }
  await reader.cancel().catch(() => {});
  return new TextDecoder().decode(Buffer.concat(chunks).subarray(0, max));
}

function wholeBodyBound(
  bound: MessageBound,
  why: string,
  requestIds: () => (string | number)[],
): TransformStream<Uint8Array, Uint8Array> {
  let bytes = 0;
  // A small body is held until it ends, to be checked whole; past the size, it flows.
  let held: Uint8Array[] | undefined = [];
  return new TransformStream({
    transform(chunk, controller) {
      bytes += chunk.byteLength;
      if (bytes > bound.limit) {
        bound.onDropped(why);
        // The SDK's send rejects with it, and so does the call that waited for this answer.
        return controller.error(new WireError(PARSE_ERROR, why));
      }
      if (held && bytes <= ANSWER_CHECK_BYTES) return void held.push(chunk);
      for (const each of held ?? []) controller.enqueue(each);
      held = undefined;
      controller.enqueue(chunk);
    },
    flush(controller) {
      if (!held) return;
      const whole = Buffer.concat(held);
      const decoded = new TextDecoder().decode(whole);
      // Messages one a line are checked, and passed on, as the batch they are (json-body.ts).
      const batch = /\}\s*\n\s*\{/.test(decoded) ? jsonLines(decoded) : undefined;
      const text = batch ? JSON.stringify(batch) : decoded;
      const replaced = wellFormedBody(text) ?? answersInstead(text, 'application/json', requestIds);
      if (replaced) bound.onDropped(replaced.why);
      const encoder = new TextEncoder();
      controller.enqueue(replaced ? encoder.encode(replaced.text) : batch ? encoder.encode(text) : whole);
    },
  });
}

const LF = 0x0a;
const CR = 0x0d;
/** How much of a dropped event's beginning is read for its type, id and method. */
const HEAD_BYTES = 64 * 1024;
/** How much of its end is kept: the SDK writes a response's id after its result. */
const TAIL_BYTES = 1024;
/** How much of a large event passed on is read for its type, id field and message id. */
const OWED_PEEK_BYTES = 4096;
/** How far past the bound a dropped event is skipped before its stream is closed: the bound again, at least this. */
const MIN_SKIP_BYTES = 4 * 1024 * 1024;

/** Where the stream is within its line: mid-line, at a line's start, or right after a CR (an LF would end no line). */
type LinePosition = 'mid' | 'start' | 'cr';

interface Drop {
  head: EventHead;
  tail: Uint8Array;
  /** The event's bytes read so far. */
  bytes: number;
  /** The waiting call was given its error answer. */
  answered: boolean;
}

/**
 * An SSE stream passed on whole events at a time (an event ends at a blank line, with LF,
 * CRLF or CR line ends): an event is held until it ends, and one that grows past the bound
 * is dropped. The bytes of the events passed on are not changed.
 */
function eventStreamBound(
  bound: MessageBound,
  why: string,
  postedRequests: () => (string | number)[],
): TransformStream<Uint8Array, Uint8Array> {
  return new TransformStream(new EventBound(bound, why, postedRequests));
}

type Controller = TransformStreamDefaultController<Uint8Array>;

/** eventStreamBound's transformer: the events held, passed on or dropped, and the answers a drop owes. */
class EventBound implements Transformer<Uint8Array, Uint8Array> {
  readonly #bound: MessageBound;
  readonly #why: string;
  readonly #postedRequests: () => (string | number)[];
  readonly #encoder = new TextEncoder();
  #held: Uint8Array[] = [];
  #heldBytes = 0;
  #line: LinePosition = 'start';
  #drop: Drop | undefined;
  #owed: OwedAnswers | undefined;

  constructor(bound: MessageBound, why: string, postedRequests: () => (string | number)[]) {
    this.#bound = bound;
    this.#why = why;
    this.#postedRequests = postedRequests;
  }

  transform(chunk: Uint8Array, controller: Controller): void {
    let start = 0;
    let at = 0;
    let nextLf = chunk.indexOf(LF);
    let nextCr = chunk.indexOf(CR);
    for (;;) {
      if (nextLf !== -1 && nextLf < at) nextLf = chunk.indexOf(LF, at);
      if (nextCr !== -1 && nextCr < at) nextCr = chunk.indexOf(CR, at);
      const end = nextLf === -1 ? nextCr : nextCr === -1 ? nextLf : Math.min(nextLf, nextCr);
      if (end === -1) break;
      if (end > at) this.#line = 'mid';
      if (this.#endsEvent(chunk[end]!)) {
        this.#eventEnds(chunk.subarray(start, end + 1), controller);
        start = end + 1;
      }
      at = end + 1;
    }
    if (at < chunk.byteLength) this.#line = 'mid';
    if (start < chunk.byteLength) this.#hold(chunk.subarray(start), controller);
  }

  flush(controller: Controller): void {
    const unanswered = this.#owedAnswers().atEnd();
    if (!unanswered) return;
    this.#bound.onDropped(unanswered.why);
    controller.enqueue(this.#encoder.encode(unanswered.events));
  }

  #owedAnswers(): OwedAnswers {
    return (this.#owed ??= new OwedAnswers(this.#postedRequests()));
  }

  #answer(controller: Controller, id: string | number): void {
    const error = { jsonrpc: '2.0', id, error: { code: PARSE_ERROR, message: this.#why } };
    controller.enqueue(this.#encoder.encode(`event: message\ndata: ${JSON.stringify(error)}\n\n`));
    this.#owedAnswers().answered(id);
  }

  #startDrop(parts: Uint8Array[], controller: Controller): void {
    const head = eventHead(new TextDecoder().decode(firstBytes(parts, HEAD_BYTES)));
    const bytes = parts.reduce((sum, part) => sum + part.byteLength, 0);
    const drop: Drop = (this.#drop = { head, tail: lastBytes(parts, TAIL_BYTES), bytes, answered: false });
    this.#held = [];
    this.#heldBytes = 0;
    this.#bound.onDropped(this.#why);
    if (head.answer && head.envelope.id !== undefined) {
      this.#answer(controller, head.envelope.id);
      drop.answered = true;
    }
  }

  #finishDrop(controller: Controller): void {
    const { head, tail, answered } = this.#drop!;
    this.#drop = undefined;
    if (answered || !head.answer) return;
    const posted = this.#postedRequests();
    // Its id at its end, or the one request of the POST this stream answers.
    const id = trailingId(new TextDecoder().decode(tail)) ?? (posted.length === 1 ? posted[0] : undefined);
    if (id !== undefined) this.#answer(controller, id);
  }

  /** One event's last bytes (through its blank line): passed on with what was held, or dropped. */
  #eventEnds(part: Uint8Array, controller: Controller): void {
    if (this.#drop) {
      this.#drop.tail = lastBytes([this.#drop.tail, part], TAIL_BYTES);
      return this.#finishDrop(controller);
    }
    if (this.#heldBytes + part.byteLength > this.#bound.limit) {
      this.#startDrop([...this.#held, part], controller);
      return this.#finishDrop(controller);
    }
    const parts = [...this.#held, part];
    const whole =
      this.#heldBytes + part.byteLength <= ANSWER_CHECK_BYTES
        ? new TextDecoder().decode(Buffer.concat(parts))
        : undefined;
    const replaced = whole === undefined ? undefined : wellFormedEvent(whole);
    const owes = this.#owedAnswers();
    if (replaced) {
      this.#bound.onDropped(replaced.why);
      controller.enqueue(this.#encoder.encode(replaced.text));
      owes.passedWhole(replaced.text);
    } else {
      for (const each of parts) controller.enqueue(each);
      // Read only while an answer is owed: once it has passed, events go by unread.
      if (whole !== undefined) owes.passedWhole(whole);
      else if (owes.owing)
        owes.passedLarge(
          new TextDecoder().decode(firstBytes(parts, OWED_PEEK_BYTES)),
          new TextDecoder().decode(lastBytes(parts, TAIL_BYTES)),
        );
    }
    this.#held = [];
    this.#heldBytes = 0;
  }

  /** A dropped event that went on past the skip budget: every owed answer given, the stream closed (its source cancelled). */
  #closeFlooded(controller: Controller): void {
    this.#bound.onDropped(
      `the server sent more than ${this.#drop!.bytes} bytes in one event; its response stream was closed`,
    );
    for (const id of this.#owedAnswers().owed) this.#answer(controller, id);
    this.#drop = undefined;
    controller.terminate();
  }

  /** An event's bytes that do not end it yet. */
  #hold(part: Uint8Array, controller: Controller): void {
    if (this.#drop) {
      this.#drop.tail = lastBytes([this.#drop.tail, part], TAIL_BYTES);
      this.#drop.bytes += part.byteLength;
      const skipBudget = this.#bound.limit + Math.max(this.#bound.limit, MIN_SKIP_BYTES);
      if (this.#drop.bytes > skipBudget) this.#closeFlooded(controller);
      return;
    }
    this.#held.push(part);
    this.#heldBytes += part.byteLength;
    if (this.#heldBytes > this.#bound.limit) this.#startDrop(this.#held, controller);
  }

  /** Moves the line position past `byte` (a CR or an LF); true when it ends an event (a blank line). */
  #endsEvent(byte: number): boolean {
    if (byte === LF && this.#line === 'cr') {
      this.#line = 'start'; // the LF of a CRLF: no line ends here
      return false;
    }
    const blankLine = this.#line !== 'mid';
    this.#line = byte === CR ? 'cr' : 'start';
    return blankLine;
  }
}

/** The ids of the requests in a POST's body (JSON-RPC, one message or a batch). */
function requestIds(body: RequestInit['body'] | undefined): (string | number)[] {
  if (typeof body !== 'string') return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return [];
  }
  return (Array.isArray(parsed) ? parsed : [parsed]).flatMap((message: unknown) => {
    if (typeof message !== 'object' || message === null || !('method' in message)) return [];
    const id = (message as { id?: unknown }).id;
    return typeof id === 'string' || typeof id === 'number' ? [id] : [];
  });
}

function mediaType(contentType: string | null): string {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase();
}
