// The two eras of MCP that mcpmux speaks, with a client and with each child: `legacy`, the
// 2025 revisions (initialize opens a session), and `modern`, 2026-07-28's (no handshake: a
// client asks server/discover, and every request carries what it needs). docs/eras.md says
// what differs.
export type Era = 'legacy' | 'modern';
