// `mcpmux call TOOL`: one tool called through a client session of mcpmux's own, in process,
// built from the same core and session factory as serving, with the servers given started as
// serving starts them. mcpmux's own tools (list_servers, find_servers, search_tools,
// read_result…) answer as they do for a client, with or without servers; a child's tool is
// called by its exposed name. Exit status: 0 when the call worked, 1 when it failed or a
// server it could need did not start.
import { InMemoryTransport } from '@modelcontextprotocol/server';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { messageOf } from '../common/errors.js';
import { printCallResult, type OneShotContext } from '../cli/one-shot.js';
import { clientSdk } from '../protocol/client-sdk.js';
import { ownToolNames } from '../session/exposure.js';
import { connectionFromCli, createCore } from './core.js';
import { sessionFactory } from './sessions.js';

/** What inspect and auth are given (but the router: the session's core makes its own), and the version to report. */
export type CallSessionInput = Omit<OneShotContext, 'router'> & { version: string };

export async function callThroughSession(input: CallSessionInput): Promise<number> {
  const { options, servers, logger: log } = input;
  const { tool, arguments: args } = options.call!;
  const core = await createCore({
    logger: log,
    policy: input.policy,
    maxToolName: options.maxToolName,
    upstream: { declareRelayable: false, followClientEra: true },
    connection: connectionFromCli(options, { pings: false }),
    expose: 'all',
    searchRanker: options.searchRanker,
    registries: { urls: options.registries, allowModelSecrets: options.allowModelSecrets },
    quarantine: options.quarantine,
  });
  const session = sessionFactory(core, {
    version: input.version,
    maxResultBytes: options.maxResultBytes,
  }).newSession();
  const { Client } = await clientSdk();
  const client = new Client({ name: 'mcpmux call', version: input.version });
  try {
    // Kept when they fail, as serving keeps configured servers: list_servers shows why.
    const started = await Promise.allSettled(
      servers.map(({ name, spec }) => core.children.add(name, spec, { keepOnFailure: true })),
    );
    let status = 0;
    started.forEach((outcome, i) => {
      if (outcome.status === 'fulfilled') return;
      status = 1;
      input.err(`server '${servers[i]!.name}' failed to start: ${messageOf(outcome.reason)}`);
    });
    // mcpmux's own tools answer whatever started (list_servers says what did not); a child's needs its server.
    if (status !== 0 && !ownToolNames().includes(tool)) return status;
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await session.connect(serverSide);
    await client.connect(clientSide);
    const result = (await client.callTool({ name: tool, arguments: args })) as CallToolResult;
    printCallResult(result, options.json, input);
    return result.isError ? 1 : status;
  } finally {
    await client.close().catch(() => {});
    await core.children.close();
    await session.close();
    await core.close();
  }
}
