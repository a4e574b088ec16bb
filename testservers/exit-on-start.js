// @ts-check
// Simulates: a server that fails at start-up: it explains why on stderr and exits with
// EXIT_CODE (default 3) before the handshake, EXIT_DELAY_MS after it started (default 0).
const delay = Number(process.env.EXIT_DELAY_MS ?? 0);
if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
process.stderr.write('exit-on-start: missing API key DEMO_KEY\n');
process.stderr.write('exit-on-start: giving up\n');
process.exit(Number(process.env.EXIT_CODE ?? 3));
