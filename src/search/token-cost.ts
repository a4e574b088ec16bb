// What tool definitions cost a model's context, approximately: their JSON, at about four
// bytes a token (the figure the result notices use too). Good enough to compare servers
// and exposure modes; not a tokenizer.
import type { Tool } from '@modelcontextprotocol/server';
import { approxTokens } from '../results/result-store.js';

export const toolTokens = (tools: readonly Tool[]): number =>
  approxTokens(Buffer.byteLength(JSON.stringify(tools)));
