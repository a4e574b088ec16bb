// @ts-check
// Simulates: a tool whose result is far too large for a model's context. `lines {bytes}`
// returns numbered text lines plus a tiny image; `json {items}` returns a JSON document.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const PIXEL = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';
const server = new McpServer({ name: 'big-result', version: '1.0.0' });
server.registerTool(
  'lines',
  {
    description: 'Numbered lines of text, about `bytes` in all, and an image',
    inputSchema: { bytes: z.number() },
  },
  ({ bytes }) => {
    const lines = [];
    let size = 0;
    for (let i = 1; size < bytes; i++) {
      const line = `line ${i}: the quick brown fox jumps over the lazy dog`;
      lines.push(line);
      size += line.length + 1;
    }
    return {
      content: [
        { type: 'text', text: lines.join('\n') },
        { type: 'image', data: PIXEL, mimeType: 'image/png' },
      ],
    };
  },
);
server.registerTool(
  'json',
  { description: 'A JSON document with `items` items', inputSchema: { items: z.number() } },
  ({ items }) => ({
    content: [
      {
        type: 'text',
        text: JSON.stringify({
          count: items,
          items: Array.from({ length: items }, (_, i) => ({ id: i, name: `item-${i}`, tags: ['a', 'b'] })),
        }),
      },
    ],
  }),
);
await server.connect(new StdioServerTransport());
