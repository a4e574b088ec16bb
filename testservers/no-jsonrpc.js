#!/usr/bin/env node
// @ts-check
// A server written by hand whose answers leave out `"jsonrpc": "2.0"`, which JSON-RPC 2.0
// requires of every message (so an SDK client skips them, and the handshake never ends).
import { answerEachRequest } from './raw-protocol.js';

answerEachRequest('no-jsonrpc', (id, result) => process.stdout.write(JSON.stringify({ id, result }) + '\n'));
