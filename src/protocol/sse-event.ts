// An SSE event's fields as MCP's streams use them (its type, its id, its data), read from its
// whole text or from its first bytes, and what those say of the message it carries.
import { peekEnvelope, type EnvelopeHead } from './envelope-peek.js';

export interface EventFields {
  /** The `event:` field; none or "message" for a JSON-RPC message. */
  type: string | undefined;
  /** The `id:` field, which a client resumes the stream from. */
  id: string | undefined;
  /** The `data:` lines joined; undefined when there are none. */
  data: string | undefined;
}

/** An event's fields, each once (the first), one space after the colon dropped, as SSE reads them. */
export function eventFields(text: string): EventFields {
  const lines = text.split(/\r\n|\r|\n/);
  const field = (name: string) =>
    lines.filter((l) => l.startsWith(name)).map((l) => l.slice(name.length).replace(/^ /, ''));
  const data = field('data:');
  return {
    type: field('event:')[0],
    id: field('id:')[0],
    data: data.length > 0 ? data.join('\n') : undefined,
  };
}

/** Whether an event of this type carries a JSON-RPC message: no type, or "message". */
export function carriesMessage({ type }: EventFields): boolean {
  return type === undefined || type === '' || type === 'message';
}

export interface EventHead {
  /** It is a message event whose JSON-RPC message has no method: an answer, which a call waits for. */
  answer: boolean;
  envelope: EnvelopeHead;
}

/** What an event's first bytes say: whether it is an answer, and its message's id and method. */
export function eventHead(text: string): EventHead {
  const fields = eventFields(text);
  const envelope = fields.data === undefined ? { hasMethod: false } : peekEnvelope(fields.data);
  return { answer: carriesMessage(fields) && fields.data !== undefined && !envelope.hasMethod, envelope };
}
