// An answer that JSON-RPC does not allow: neither a result nor an error, or an error that is
// not an object with an integer code and a string message. From a server, taken as it was, an
// `"error": null` threw in the forwarding fast path after the call had been taken off its
// list, so the call was never answered; an error without a code went to the client as it
// was, and an SDK client drops such a message and waits until its own timeout. From the
// client (its answer to a server's question: sampling, roots), the SDK dropped it, and the
// server's question and the client's own call waited. It becomes an Internal error that says
// what was sent, under the same id, so that whoever waits for it is answered. Here too: the
// schema of a result passed on unchecked (UncheckedResult).
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { isObject, shown } from './request-shape.js';
import { carriesMessage, eventFields } from './sse-event.js';
import { z } from 'zod';

/** Who sent an answer, as its error says it: "the server", "the client". */
type Sender = string;

/** `message` when it is not an answer or is well formed; else the error answer that stands for it, and why. */
export function wellFormedAnswer(
  message: JSONRPCMessage,
  from: Sender = 'the server',
): { answer: JSONRPCMessage; why?: undefined } | { answer: JSONRPCMessage; why: string } {
  if ('method' in message || !('id' in message)) return { answer: message };
  const body = message as { result?: unknown; error?: unknown };
  const problem =
    'error' in body
      ? errorProblem(body.error)
      : body.result === undefined
        ? 'it has neither a "result" nor an "error"'
        : undefined;
  // JSON-RPC allows any result; MCP's are objects, and an SDK client drops any other and waits.
  const notMcp =
    problem === undefined && !('error' in body) && !isObject(body.result)
      ? `its "result" is ${shown(body.result)}, not an object`
      : undefined;
  if (problem === undefined && notMcp === undefined) return { answer: message };
  const why = `${from}'s answer is not valid ${problem ? `JSON-RPC: ${problem}` : `MCP: ${notMcp}`}`;
  return {
    answer: { jsonrpc: '2.0', id: message.id, error: { code: -32603, message: why } } as JSONRPCMessage,
    why,
  };
}

/**
 * A parsed body (one message, or a batch) with its malformed answers replaced; each
 * replacement's why is told to `told`. Anything that is not an object passes as it is.
 */
export function wellFormedAnswers(body: unknown, from: Sender, told: (why: string) => void): unknown {
  const check = (message: unknown) => {
    if (!isAnswer(message)) return message;
    const { answer, why } = wellFormedAnswer(message, from);
    if (why !== undefined) told(why);
    return answer;
  };
  return Array.isArray(body) ? body.map(check) : check(body);
}

function errorProblem(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null || Array.isArray(error))
    return `its "error" is ${shown(error)}, not an object`;
  const { code, message } = error as { code?: unknown; message?: unknown };
  const said = typeof message === 'string' ? ` (it said: ${message.slice(0, 300)})` : '';
  if (!Number.isInteger(code)) return `its error's "code" is ${shown(code)}, not an integer${said}`;
  if (typeof message !== 'string') return `its error's "message" is ${shown(message)}, not a string`;
  return undefined;
}

/**
 * An SSE event (its whole text) whose message is a malformed answer, rewritten to carry the
 * error answer that stands for it (its `id:` line kept, for resuming the stream); undefined to
 * pass it on as it is.
 */
export function wellFormedEvent(text: string): { text: string; why: string } | undefined {
  if (mayBeWellFormedResult(text)) return undefined;
  const fields = eventFields(text);
  if (!carriesMessage(fields) || fields.data === undefined) return undefined;
  const replaced = replacedAnswer(fields.data);
  if (!replaced) return undefined;
  const { id } = fields;
  const idLine = id === undefined ? '' : `id: ${id}\n`;
  return { text: `${idLine}event: message\ndata: ${JSON.stringify(replaced.answer)}\n\n`, why: replaced.why };
}

/** A JSON body (one message, or a batch) with its malformed answers replaced; undefined to pass it on. */
export function wellFormedBody(text: string): { text: string; why: string } | undefined {
  if (mayBeWellFormedResult(text)) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined; // the SDK says what is wrong with a body that is not JSON
  }
  const whys: string[] = [];
  const checked = wellFormedAnswers(parsed, 'the server', (why) => whys.push(why));
  return whys.length === 0 ? undefined : { text: JSON.stringify(checked), why: whys.join('; ') };
}

/**
 * Error answers, one for each of `ids`, standing for a body that holds no JSON-RPC message at
 * all (a status object, a web page: an address that is not the server's MCP endpoint), so
 * that the requests it answered fail saying what came instead. Undefined when the body is
 * JSON-RPC, however malformed (that is wellFormedBody's), or when nothing waits for it
 * (`requestIds` is asked only for a body that is not JSON-RPC).
 */
export function answersInstead(
  text: string,
  contentType: string,
  requestIds: () => readonly (string | number)[],
): { text: string; why: string } | undefined {
  if (mayBeWellFormedResult(text) || holdsJsonRpc(text)) return undefined;
  const ids = requestIds();
  if (ids.length === 0) return undefined;
  const sent = quoted(text);
  const why = `the server's answer is not JSON-RPC: it sent ${contentType || 'a body without a content type'}${sent ? `: ${sent}` : ', empty'}`;
  const answers = ids.map((id) => ({ jsonrpc: '2.0', id, error: { code: -32603, message: why } }));
  return { text: JSON.stringify(answers.length === 1 ? answers[0] : answers), why };
}

/** Whether a body is a JSON-RPC message or a batch of them, by its envelope alone. */
function holdsJsonRpc(text: string): boolean {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return false;
  }
  const isMessage = (value: unknown) => isObject(value) && ('id' in value || 'method' in value);
  return Array.isArray(parsed) ? parsed.length > 0 && parsed.every(isMessage) : isMessage(parsed);
}

function replacedAnswer(data: string): { answer: JSONRPCMessage; why: string } | undefined {
  let message: unknown;
  try {
    message = JSON.parse(data);
  } catch {
    return undefined;
  }
  if (!isAnswer(message)) return undefined;
  const { answer, why } = wellFormedAnswer(message);
  return why === undefined ? undefined : { answer, why };
}

/**
 * A line that is not JSON but plainly an answer, by its envelope where SDKs and most
 * hand-written servers put it (`{"jsonrpc":"2.0","id":7,"result":…` or `{"result":…,"jsonrpc":
 * "2.0","id":7}`, or "error" for "result"): the error answer that stands for it, so that the
 * request it answers fails now, not at --call-timeout (a text with an unescaped quote, written
 * by hand). Else undefined.
 */
export function unparsableAnswer(line: string): { answer: JSONRPCMessage; why: string } | undefined {
  const found = BODY_AFTER_ID.exec(line) ?? (BODY_FIRST.test(line) ? ID_LAST.exec(line) : null);
  if (!found) return undefined;
  const id = found[1]!.startsWith('"') ? found[1]!.slice(1, -1) : Number(found[1]);
  let reason = '';
  try {
    JSON.parse(line);
  } catch (error) {
    reason = ` (${(error as Error).message})`;
  }
  const written = line.length > 200 ? `${line.slice(0, 200)}…` : line;
  const why = `the server's answer is not JSON${reason}: ${written}`;
  return {
    answer: { jsonrpc: '2.0', id, error: { code: -32603, message: why } } as JSONRPCMessage,
    why,
  };
}

/** An id as SDKs write one: a string without escapes, or an integer. */
const ID = String.raw`("[^"\\]*"|-?\d{1,15})`;
const BODY_AFTER_ID = new RegExp(
  String.raw`^\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*${ID}\s*,\s*"(?:result|error)"\s*:`,
);
const BODY_FIRST = /^\{\s*"(?:result|error)"\s*:/;
const ID_LAST = new RegExp(String.raw`,\s*"jsonrpc"\s*:\s*"2\.0"\s*,\s*"id"\s*:\s*${ID}\s*\}\s*$`);

/** How much of what a peer sent instead of a message an error quotes. */
const QUOTED = 200;

/**
 * What a peer sent, as an error quotes it: its whitespace flattened, cut to QUOTED characters
 * (an ellipsis says so). Only its beginning is read: a body may be megabytes.
 */
export function quoted(text: string): string {
  const flat = text
    .slice(0, 20 * QUOTED)
    .replace(/\s+/g, ' ')
    .trim();
  return flat.length > QUOTED ? `${flat.slice(0, QUOTED)}…` : flat;
}

/** A JSON-RPC answer by its envelope: an object with an id and no method. */
function isAnswer(value: unknown): value is JSONRPCMessage {
  return isObject(value) && 'id' in value && !('method' in value);
}

/** A result object without an error anywhere in its text is well formed: most answers, not parsed again. */
function mayBeWellFormedResult(text: string): boolean {
  return RESULT_OBJECT.test(text) && !text.includes('"error"');
}

const RESULT_OBJECT = /"result"\s*:\s*\{/;

/**
 * What mcpmux passes between a child and its client without checking it: the receiving SDK (the
 * client's, or the child's) validates a result against its method's schema, so a second check
 * here would only double the cost.
 */
export const UncheckedResult = z.custom<Record<string, unknown>>((v) => typeof v === 'object' && v !== null);
