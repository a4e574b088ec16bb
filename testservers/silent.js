// @ts-check
// Simulates: a process that is not an MCP server: it reads stdin and never answers, so
// only the start-up timeout ends the wait.
process.stdin.resume();
process.stderr.write('silent: listening, but not to MCP\n');
