// @ts-check
// Simulates: a server that fails at start-up: it explains why on stderr and exits with
// EXIT_CODE (default 3) before the handshake.
process.stderr.write('exit-on-start: missing API key DEMO_KEY\n');
process.stderr.write('exit-on-start: giving up\n');
process.exit(Number(process.env.EXIT_CODE ?? 3));
