// @ts-check
// One call after another to a tool (echo's message argument), each one's latency in ms: what the
// benches compare path against path.

/** Nanoseconds (process.hrtime.bigint) as milliseconds. */
export const ms = (/** @type {bigint} */ ns) => Number(ns) / 1e6;

/** @param {import('@modelcontextprotocol/client').Client} client @param {string} tool @param {number} n */
export async function sequential(client, tool, n) {
  const times = [];
  for (let i = 0; i < n; i++) {
    const t0 = process.hrtime.bigint();
    await client.callTool({ name: tool, arguments: { message: `m${i}` } });
    times.push(ms(process.hrtime.bigint() - t0));
  }
  return times;
}
