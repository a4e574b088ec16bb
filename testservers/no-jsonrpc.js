#!/usr/bin/env node
// @ts-check
// A server written by hand whose answers leave out `"jsonrpc": "2.0"`, which JSON-RPC 2.0
// requires of every message (so an SDK client skips them, and the handshake never ends).
import { createInterface } from 'node:readline';

createInterface({ input: process.stdin }).on('line', (line) => {
  const { id, method, params } = JSON.parse(line);
  if (id === undefined) return;
  const result =
    method === 'initialize'
      ? {
          protocolVersion: params.protocolVersion,
          capabilities: { tools: {} },
          serverInfo: { name: 'no-jsonrpc', version: '1.0.0' },
        }
      : {};
  process.stdout.write(JSON.stringify({ id, result }) + '\n');
});
