#!/usr/bin/env node
// @ts-check
// A server whose output is block-buffered, as a Python program's print is on a pipe without
// flush=True: its answers are held and all written at once when its stdin closes and it exits.
import { createInterface } from 'node:readline';

/** @type {string[]} */
const held = [];
createInterface({ input: process.stdin })
  .on('line', (line) => {
    const { id, method, params } = JSON.parse(line);
    if (id === undefined) return;
    const result =
      method === 'initialize'
        ? {
            protocolVersion: params.protocolVersion,
            capabilities: { tools: {} },
            serverInfo: { name: 'buffers-output', version: '1.0.0' },
          }
        : {};
    held.push(JSON.stringify({ jsonrpc: '2.0', id, result }) + '\n');
  })
  .on('close', () => process.stdout.write(held.join('')));
