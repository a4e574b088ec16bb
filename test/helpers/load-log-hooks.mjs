// Module hooks for a test that checks what the built mcpmux loads: each file loaded from
// dist/, and each OpenTelemetry package (left out of the bundle), is named on stderr. The hooks run in their own thread, whose process.stderr is
// piped through the main thread later; writeSync puts the line on fd 2 before the module runs.
import { writeSync } from 'node:fs';

export async function load(url, context, next) {
  if (url.includes('/dist/') || url.includes('/node_modules/@opentelemetry/'))
    writeSync(2, `module-load-log ${url}\n`);
  return next(url, context);
}
