// A request on the forwarding fast path, as both of its sides see it: the client's side
// (session/fast-path/fast-path.ts) and the child's (child/requests/child-lane.ts). Below both, so that
// neither they nor transport/ (which sends a Reply) reach into the other's room.
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { MuxError } from '../common/errors.js';
import type { Id } from './id-table.js';

/** What the client's side asks of the lane that carries a call. */
export interface CallLane {
  /** Ends the call at its child (notifications/cancelled) and answers its client with `reason`. */
  cancel(call: ForwardedCall, reason: string): void;
}

export type Params = Record<string, unknown>;
/**
 * Sends a message to the client; `pieces`, where the client's transport has it, sends one line
 * already serialized, given in pieces of text and bytes (an answer with the client's id spliced in).
 */
export type Reply = ((message: JSONRPCMessage) => void) & {
  pieces?: (pieces: readonly (string | Buffer)[]) => void;
};

/** How a child's answer becomes the client's, per method. */
export interface Shaping {
  /** The child's result, with the length of the line it came on. */
  result(result: Params, bytes: number): Params | Promise<Params>;
  /**
   * Whether a result on a line this long goes to the client as the child wrote it: then the
   * line is passed on with only its id replaced, never parsed. Absent: every result is shaped.
   */
  passThrough?: (bytes: number) => boolean;
  /** mcpmux's own verdict (timeout, crash, removal): tools/call answers it as an isError result. */
  failure(error: MuxError): { result: Params } | { error: { code: number; message: string; data?: unknown } };
}

/** One request in flight on the fast path, from the client's id to the child's and back. */
export class ForwardedCall {
  /** The lane that carries it to its child (child/requests/child-lane.ts), once sent. */
  lane: CallLane | undefined;
  /** The lane's number for the call; its id on the child's side is `mcpmux-<seq>`. */
  seq = 0;
  childId = '';
  /** When --call-timeout ends it (performance.now()), unless an answer or progress comes first. */
  deadline = 0;
  /** Its neighbours in its lane's deadline order while it is pending (see ChildLane). */
  earlier: ForwardedCall | undefined;
  later: ForwardedCall | undefined;

  readonly id: Id;
  /** The client's progress token, when it asked for progress. */
  readonly progressToken: Id | undefined;
  /** What the call is, for the timeout's message: `tool 'x'`, or the method. */
  readonly what: string;
  /** Where its answer goes: the client, or a held call once the child asked (fast-call-origin.ts). */
  reply: Reply;
  shaping: Shaping;
  /** Called once when the call is over, however it ended. */
  readonly done: () => void;

  constructor(
    id: Id,
    progressToken: Id | undefined,
    what: string,
    reply: Reply,
    shaping: Shaping,
    done: () => void,
  ) {
    this.id = id;
    this.progressToken = progressToken;
    this.what = what;
    this.reply = reply;
    this.shaping = shaping;
    this.done = done;
  }

  answer(body: { result: Params } | { error: unknown }): void {
    this.reply({ jsonrpc: '2.0', id: this.id, ...body } as JSONRPCMessage);
  }
}

/** The timeout's verdict, the same on both paths. */
export function callTimeoutError(server: string, what: string, timeoutMs: number): MuxError {
  return new MuxError(
    'CALL_TIMEOUT',
    `server '${server}' did not answer ${what} within ${timeoutMs / 1000} s (no progress either); the request was cancelled`,
  );
}

/** A JSON-RPC error object as it goes on the wire. */
export function plainError(error: { code: number; message: string; data?: unknown }) {
  return { code: error.code, message: error.message, ...(error.data !== undefined && { data: error.data }) };
}
