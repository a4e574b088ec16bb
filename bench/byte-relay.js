#!/usr/bin/env node
// @ts-check
// The floor for any proxy process: relays JSON-RPC lines between its stdin and one child
// unchanged except for the tool name, with no MCP logic at all. What it adds over a direct
// connection is the cost of the two extra pipe hops alone. Usage: byte-relay.js PREFIX CMD ARGS…
import { spawn } from 'node:child_process';

const [prefix, command, ...args] = process.argv.slice(2);
if (!prefix || !command) throw new Error('usage: byte-relay.js PREFIX COMMAND [ARGS…]');
const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'ignore'] });
const quotedPrefix = JSON.stringify(prefix).slice(0, -1);
let pending = '';
process.stdin.setEncoding('utf8').on('data', (/** @type {string} */ chunk) => {
  const lines = (pending + chunk).split('\n');
  pending = lines.pop() ?? '';
  child.stdin.write(lines.map((line) => line.replaceAll(quotedPrefix, '"') + '\n').join(''));
});
child.stdout.pipe(process.stdout);
process.stdin.on('end', () => child.kill());
child.on('exit', () => process.exit(0));
