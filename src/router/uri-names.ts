// Exposed resource URIs. A URI (or URI template) listed by one child is exposed as it is;
// one listed by two or more children is exposed, for each of them, as
// `mcpmux://<server>/<original>`, which names the server and keeps the original intact, so
// the rewrite can always be undone. Server names never contain '/', so the first '/' after
// the prefix ends the server name.
export const MUX_URI_PREFIX = 'mcpmux://';

export const rewriteUri = (server: string, uri: string): string => `${MUX_URI_PREFIX}${server}/${uri}`;

/** The server and original URI of a rewritten URI; undefined for any other URI. */
export function parseRewrittenUri(uri: string): { server: string; uri: string } | undefined {
  if (!uri.startsWith(MUX_URI_PREFIX)) return undefined;
  const rest = uri.slice(MUX_URI_PREFIX.length);
  const slash = rest.indexOf('/');
  if (slash <= 0) return undefined;
  return { server: rest.slice(0, slash), uri: rest.slice(slash + 1) };
}
