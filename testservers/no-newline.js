#!/usr/bin/env node
// @ts-check
// A server written by hand that writes each message without the newline that ends it (as
// `process.stdout.write(JSON.stringify(message))` does), which MCP's stdio transport needs.
import { createInterface } from 'node:readline';

createInterface({ input: process.stdin }).on('line', (line) => {
  const { id, method, params } = JSON.parse(line);
  if (id === undefined) return;
  const result =
    method === 'initialize'
      ? {
          protocolVersion: params.protocolVersion,
          capabilities: { tools: {} },
          serverInfo: { name: 'no-newline', version: '1.0.0' },
        }
      : {};
  process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id, result }));
});
