// What the HTTP server is told: where to listen, whom to admit, how many sessions and how
// large a body, and how to make the MCP server of a session or of one 2026-07-28 request.
import type { HopOptions } from './hop-lines.js';
import type { Server } from '@modelcontextprotocol/server';
import type { Logger } from '../common/log.js';
import type { HttpSession } from './session-wiring.js';

export interface HttpServeOptions {
  port: number;
  host: string;
  /** When set, every request must carry `Authorization: Bearer <token>`. */
  authToken?: string | undefined;
  /** More Host names and browser origins to accept than loopback and the bound address. */
  allowedHosts?: readonly string[];
  allowedOrigins?: readonly string[];
  /** A session with nothing in flight for this long is closed. Default 30 min; 0: never. */
  sessionIdleTimeoutMs?: number;
  /** Sessions open at once. Default 100. */
  maxSessions?: number;
  createSession: () => HttpSession;
  /** What a new 2025 session and a 2026-07-28 discover wait for: the configured servers' start, bounded. */
  beforeSession?: () => Promise<void> | undefined;
  /** A session ended (expired, deleted or dropped): what it held is garbage now. */
  onSessionEnd?: () => void;
  /**
   * A server for one request of a modern (2026-07-28) client, which has no session: each
   * request carries its own _meta envelope. Without it, modern requests are refused.
   */
  createRequestServer?: () => Server;
  /**
   * A 2026-07-28 client opened a listen stream naming these resources: the stream is
   * acknowledged once `ready` settles, and `end` is called when it closes.
   */
  onListen?: (resourceUris: string[]) => { ready: Promise<void>; end: () => void };
  /** An exposed tool's input schema, whose x-mcp-header arguments a modern client's call repeats in headers. */
  toolInputSchema?: (name: string) => unknown;
  logger: Logger;
  /** Largest request body, in bytes. Default 16 MiB. */
  maxBodyBytes?: number;
  /** Whether the configured servers have each started or failed: GET /readyz answers 200 then, 503 before. */
  ready?: () => boolean;
  /**
   * A replica that has not read its cluster's set of servers yet: MCP requests are refused
   * (503, Retry-After) rather than answered without the cluster's servers; a load balancer
   * that has not seen /readyz fail yet sends them on to another replica.
   */
  joining?: () => boolean;
  /** A replica of a cluster: the internal hop to the servers it runs for the others (hop-lines.ts). */
  hop?: HopOptions;
}
