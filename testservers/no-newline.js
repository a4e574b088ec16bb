#!/usr/bin/env node
// @ts-check
// A server written by hand that writes each message without the newline that ends it (as
// `process.stdout.write(JSON.stringify(message))` does), which MCP's stdio transport needs.
import { answerEachRequest } from './raw-protocol.js';

answerEachRequest('no-newline', (id, result) =>
  process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id, result })),
);
