// The answers a POST's event stream owes: one for each request the POST carried. A stream that
// ends owing some, and gave no event id to resume it by, will never bring them: the SDK gives
// such a stream up without failing its calls, which then waited for --call-timeout (300 s by
// default), as they did when the server's one event was not JSON (a text with an unescaped
// quote, an error page). Its end brings an error answer for each request still owed instead,
// saying what came in its place.
import { peekEnvelope, trailingId } from '../transport/envelope-peek.js';
import { isObject } from '../transport/request-shape.js';

/** How much of an event that is no answer is quoted in the error. */
const QUOTED = 200;

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

  /**
   * An event passed on to the SDK: its first bytes and its last, decoded, and its whole text
   * when it is small enough to be read whole (then its data is parsed: the SDK drops an event
   * that is not JSON, so an answer the SDK cannot read is still owed).
   */
  passed(head: string, tail: string, whole?: string): void {
    if (!this.owing) return;
    if (/(?:^|[\r\n])id: ?[^\r\n]/.test(head)) this.#resumable = true;
    const type = /(?:^|[\r\n])event: ?([^\r\n]*)/.exec(head)?.[1];
    if (type !== undefined && type !== '' && type !== 'message') return;
    if (whole === undefined) {
      const field = /(?:^|[\r\n])data: ?/.exec(head);
      if (!field) return;
      const data = head.slice(field.index + field[0].length);
      if (!/^\s*[{[]/.test(data)) this.#instead ??= `an event that is not JSON: ${quote(data)}`;
      const envelope = peekEnvelope(data);
      if (!envelope.hasMethod) this.answered(envelope.id ?? trailingId(tail));
      return;
    }
    const lines = whole.split(/\r\n|\r|\n/).filter((line) => line.startsWith('data:'));
    if (lines.length === 0) return;
    const data = lines.map((line) => line.slice(5).replace(/^ /, '')).join('\n');
    let message: unknown;
    try {
      message = JSON.parse(data);
    } catch (error) {
      this.#instead ??= `an event that is not JSON (${(error as Error).message}): ${quote(data)}`;
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

  /** An answer to `id` was sent on (this stream's own error answers, a repaired answer). */
  answered(id: string | number | undefined): void {
    if (id !== undefined) this.#owed.delete(id);
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

function quote(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > QUOTED ? `${flat.slice(0, QUOTED)}…` : flat;
}
