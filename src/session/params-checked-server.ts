// The SDK's Server, but a request whose params do not fit its method's schema is answered
// -32602 Invalid params, saying what to fix. The SDK (2.4) checks a spec method's params
// before its handler runs and throws a plain Error holding zod's issues as JSON, which goes
// out as -32603 Internal error with that JSON as its message: `logging/setLevel {"level":
// "loud"}` told the client that mcpmux broke (upstream typescript-sdk#2284; its fix, #2492,
// is not released). tools/call is checked by the SDK's Server itself and already answers -32602.
import { ProtocolError, ProtocolErrorCode, Server } from '@modelcontextprotocol/server';

type Handler = Parameters<Server['_wrapHandler']>[1];

export class ParamsCheckedServer extends Server {
  protected override _wrapHandler(method: string, handler: Handler): Handler {
    // The SDK's check runs synchronously inside `handler`, before mcpmux's own handler is called.
    const checked: Handler = (request, ctx) => {
      try {
        return handler(request, ctx);
      } catch (error) {
        const problems = paramsProblems(error);
        if (problems === undefined) throw error;
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Invalid params for ${method}: ${problems}`);
      }
    };
    return super._wrapHandler(method, checked);
  }
}

/**
 * The SDK's failed check of a request, in words ("level: Invalid option: expected one of …"):
 * a plain Error whose message is zod's issues as JSON. Anything else is undefined (not ours to
 * reword).
 */
export function paramsProblems(error: unknown): string | undefined {
  if (!(error instanceof Error) || error.constructor !== Error || !error.message.startsWith('['))
    return undefined;
  let issues: unknown;
  try {
    issues = JSON.parse(error.message);
  } catch {
    return undefined;
  }
  if (!Array.isArray(issues) || issues.length === 0 || !issues.every(isIssue)) return undefined;
  return issues
    .map(({ path, message }) => {
      // The request's own envelope is not the client's to fix field by field: paths start at params.
      const where = (path[0] === 'params' ? path.slice(1) : path).join('.');
      return where === '' ? message : `${where}: ${message}`;
    })
    .join('; ');
}

function isIssue(value: unknown): value is { path: (string | number)[]; message: string } {
  const issue = value as { path?: unknown; message?: unknown } | null;
  return (
    typeof issue === 'object' &&
    issue !== null &&
    Array.isArray(issue.path) &&
    typeof issue.message === 'string'
  );
}
