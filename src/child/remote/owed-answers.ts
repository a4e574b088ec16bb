// The answers a POST's event stream owes: one for each request the POST carried. A stream that
// ends owing some, and gave no event id to resume it by, will never bring them: the SDK gives
// such a stream up without failing its calls, which then waited for --call-timeout (300 s by
// default), as they did when the server's one event was not JSON (a text with an unescaped
// quote, an error page). Its end brings an error answer for each request still owed instead,
// saying what came in its place.
import { peekEnvelope, trailingId } from '../../protocol/envelope-peek.js';
import { quoted } from '../../protocol/answer-shape.js';
import { isObject } from '../../protocol/request-shape.js';
import { carriesMessage, eventFields } from '../../protocol/sse-event.js';

export class OwedAnswers {
  readonly #owed: Set<string | number>;
  /** An event had an id: the SDK resumes the stream from it, and the answer may come then. */
  #resumable = false;
  /** What the first message event the SDK cannot read was, quoted. */
  #instead: string | undefined;

  constructor(posted: readonly (string | number)[]) {
    this.#owed = new Set(posted);
  }

  /** Whether an answer is still owed. */
  get owing(): boolean {
    return this.#owed.size > 0;
  }

  /** An event passed on whole (small enough to read): its data is parsed, as the SDK will parse it. */
  passedWhole(text: string): void {
    const data = this.#messageData(text);
    if (data === undefined) return;
    let message: unknown;
    try {
      message = JSON.parse(data);
    } catch (error) {
      // The SDK drops it: an answer it held is still owed.
      this.#instead ??= `an event that is not JSON (${(error as Error).message}): ${quoted(data)}`;
      return;
    }
    for (const each of Array.isArray(message) ? message : [message])
      if (
        isObject(each) &&
        !('method' in each) &&
        (typeof each['id'] === 'string' || typeof each['id'] === 'number')
      )
        this.answered(each['id']);
  }

  /** The ids of the requests still owed an answer. */
  get owed(): (string | number)[] {
    return [...this.#owed];
  }

  /** A large event passed on: its first bytes and its last, decoded; its answer known by its envelope. */
  passedLarge(head: string, tail: string): void {
    const data = this.#messageData(head);
    if (data === undefined) return;
    if (!/^\s*[{[]/.test(data)) this.#instead ??= `an event that is not JSON: ${quoted(data)}`;
    const envelope = peekEnvelope(data);
    if (!envelope.hasMethod) this.answered(envelope.id ?? trailingId(tail));
  }

  /** An answer to `id` was sent on (this stream's own error answers, a repaired answer). */
  answered(id: string | number | undefined): void {
    if (id !== undefined) this.#owed.delete(id);
  }

  /** The data of a message event while an answer is owed; undefined for any other. */
  #messageData(text: string): string | undefined {
    if (!this.owing) return undefined;
    const fields = eventFields(text);
    if (fields.id) this.#resumable = true;
    return carriesMessage(fields) ? fields.data : undefined;
  }

  /** The error answers for what is still owed when the stream ended, as SSE events, and why; none when nothing is. */
  atEnd(): { events: string; why: string } | undefined {
    if (this.#resumable || this.#owed.size === 0) return undefined;
    const why = `the server ended its response stream without answering${this.#instead === undefined ? '' : `; it sent ${this.#instead}`}`;
    const events = [...this.#owed]
      .map((id) => {
        const error = { jsonrpc: '2.0', id, error: { code: -32603, message: why } };
        return `event: message\ndata: ${JSON.stringify(error)}\n\n`;
      })
      .join('');
    return { events, why };
  }
}
