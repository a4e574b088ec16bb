#!/usr/bin/env node
// @ts-check
// A server whose output is block-buffered, as a Python program's print is on a pipe without
// flush=True: its answers are held and all written at once when its stdin closes and it exits.
import { answerEachRequest } from './raw-protocol.js';

/** @type {string[]} */
const held = [];
answerEachRequest('buffers-output', (id, result) =>
  held.push(JSON.stringify({ jsonrpc: '2.0', id, result }) + '\n'),
);
process.stdin.on('end', () => process.stdout.write(held.join('')));
