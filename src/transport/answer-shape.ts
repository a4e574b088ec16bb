// A server's answer that JSON-RPC does not allow: neither a result nor an error, or an error
// that is not an object with an integer code and a string message. Taken as it was, an
// `"error": null` threw in the forwarding fast path after the call had been taken off its
// list, so the call was never answered; an error without a code went to the client as it
// was, and an SDK client drops such a message and waits until its own timeout. It becomes an
// Internal error that says what the server sent, under the same id.
import type { JSONRPCMessage } from '@modelcontextprotocol/server';

/** `message` when it is not an answer or is well formed; else the error answer that stands for it, and why. */
export function wellFormedAnswer(
  message: JSONRPCMessage,
): { answer: JSONRPCMessage; why?: undefined } | { answer: JSONRPCMessage; why: string } {
  if ('method' in message || !('id' in message)) return { answer: message };
  const body = message as { result?: unknown; error?: unknown };
  const problem =
    'error' in body
      ? errorProblem(body.error)
      : body.result === undefined
        ? 'it has neither a "result" nor an "error"'
        : undefined;
  if (problem === undefined) return { answer: message };
  const why = `the server's answer is not valid JSON-RPC: ${problem}`;
  return {
    answer: { jsonrpc: '2.0', id: message.id, error: { code: -32603, message: why } } as JSONRPCMessage,
    why,
  };
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

function shown(value: unknown): string {
  return value === undefined ? 'missing' : (JSON.stringify(value) ?? String(value)).slice(0, 100);
}
