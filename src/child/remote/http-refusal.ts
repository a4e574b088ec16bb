// A remote server's HTTP refusal of a request (401, 429, 502…), in words that say whose it
// was and what to do next. The SDK's own read "Error POSTing to endpoint: <body>", which an
// agent cannot act on, and mcpmux reported them as its own unexpected failure.
import { STATUS_CODES } from 'node:http';
import { SdkHttpError } from '@modelcontextprotocol/server';
import { MuxError } from '../../common/errors.js';
import { quoted } from '../../protocol/answer-shape.js';

/** The MuxError for `error` when it is an HTTP refusal; anything else as it is. */
export function httpRefusal(name: string, error: unknown): unknown {
  const refusal = refusalOf(error);
  if (!refusal) return error;
  const { status } = refusal;
  const statusText = refusal.statusText || STATUS_CODES[status];
  const said = refusalText(refusal.body);
  const answered = `server '${name}' answered HTTP ${status}${statusText ? ` ${statusText}` : ''}${said ? `: ${said}` : ''}`;
  const credentials = status === 401 || status === 403;
  const advice = credentials
    ? "; it did not accept mcpmux's credentials: check the server's headers (a token may have expired or lack a permission), then call reload_server"
    : status === 429
      ? '; it is limiting how often it is called: try again later'
      : status >= 500
        ? '; the server (or a proxy in front of it) failed: try again, and reload_server if it persists'
        : '';
  return new MuxError(credentials ? 'AUTH_FAILED' : 'CHILD_ERROR', answered + advice, { cause: error });
}

/**
 * The status and body of an HTTP refusal: the streamable HTTP transport's error, or the text of
 * the HTTP+SSE transport's ("Error POSTing to endpoint (HTTP 502): <body>").
 */
function refusalOf(error: unknown): { status: number; statusText?: string; body: unknown } | undefined {
  if (error instanceof SdkHttpError)
    return { status: error.status, statusText: error.statusText ?? '', body: error.data['text'] };
  const sse =
    error instanceof Error && /^Error POSTing to endpoint \(HTTP (\d{3})\): ([\s\S]*)$/.exec(error.message);
  return sse ? { status: Number(sse[1]), body: sse[2] } : undefined;
}

/** What a refusal's body says: a JSON-RPC error's message, or its text, cut short. */
function refusalText(body: unknown): string {
  if (typeof body !== 'string') return '';
  let text = body.trim();
  try {
    const parsed = JSON.parse(text) as { error?: { message?: unknown } };
    if (typeof parsed.error?.message === 'string') text = parsed.error.message;
  } catch {
    // not JSON: the text as it is (an HTML error page, a proxy's words)
  }
  return quoted(text);
}
