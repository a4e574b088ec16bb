// @ts-check
// Simulates: a 2026-07-28 server that leaves `resultType` out of its complete results, as some
// servers of that era still do (the revision requires it; absent used to mean complete). It is
// modern-v2.js with each such line rewritten on its way to stdout; its era probe's answer
// (server/discover) keeps the field, so it is still found to speak 2026-07-28.
const write = process.stdout.write.bind(process.stdout);
let pending = '';
/** @type {(chunk: string | Uint8Array, ...rest: any[]) => boolean} */
const withoutResultType = (chunk, ...rest) => {
  pending += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
  let lines = '';
  for (let end = pending.indexOf('\n'); end >= 0; end = pending.indexOf('\n')) {
    const line = pending.slice(0, end);
    pending = pending.slice(end + 1);
    lines += strip(line) + '\n';
  }
  const callback = rest.find((r) => typeof r === 'function');
  return lines ? write(lines, callback) : (callback?.(), true);
};
process.stdout.write = /** @type {typeof process.stdout.write} */ (withoutResultType);

/** @param {string} line */
function strip(line) {
  try {
    const message = JSON.parse(line);
    const result = message?.result;
    if (result?.resultType !== 'complete' || 'supportedVersions' in result) return line;
    delete result.resultType;
    return JSON.stringify(message);
  } catch {
    return line;
  }
}

await import('./modern-v2.js');
