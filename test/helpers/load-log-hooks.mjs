// Module hooks for a test that checks what the built mcpmux loads: each file loaded from
// dist/ is named on stderr (the hooks run in their own thread; stderr is shared).
export async function load(url, context, next) {
  if (url.includes('/dist/')) process.stderr.write(`module-load-log ${url}\n`);
  return next(url, context);
}
