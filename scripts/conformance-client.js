#!/usr/bin/env node
// @ts-check
// mcpmux as the conformance suite's client: the suite runs `node conformance-client.js URL`
// with MCP_CONFORMANCE_SCENARIO (and MCP_CONFORMANCE_CONTEXT: a pre-registered client, or the
// tool calls to make) set; MCPMUX_CONFORMANCE_ERA is the era mcpmux speaks to the suite's
// server (legacy, the default, for the 2025 scenarios; auto for the 2026-07-28 ones).
// It does what a user of mcpmux would: a config file with the server's URL (and "oauth" with
// the credentials a scenario hands out), then the one-shot commands `mcpmux inspect` and `mcpmux call` (or, where
// the server asks the client for input, mcpmux serving on stdio to a client that answers), with
// $BROWSER set to conformance-browser.js, which follows the suite's auto-approving
// authorization redirects to mcpmux's loopback callback, as a person's browser would.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
const MAIN = join(HERE, '..', 'dist', 'main.js');
const url = process.argv[2];
if (!url) throw new Error('usage: conformance-client.js SERVER_URL');
const scenario = process.env['MCP_CONFORMANCE_SCENARIO'] ?? '';
const context = JSON.parse(process.env['MCP_CONFORMANCE_CONTEXT'] ?? '{}');

const era = process.env['MCPMUX_CONFORMANCE_ERA'] ?? 'legacy';
/** @type {{name: string, arguments?: Record<string, unknown>}[] | undefined} */
const toolCalls = Array.isArray(context.toolCalls) ? context.toolCalls : undefined;
const scratch = mkdtempSync(join(tmpdir(), 'mcpmux-conformance-client-'));
// A workload (SEP-1933) trades the token its platform wrote to a file for tokens.
const workloadToken = typeof context.valid_jwt === 'string' ? join(scratch, 'workload-token') : undefined;
if (workloadToken) writeFileSync(workloadToken, context.valid_jwt);
// A person of an organisation (SEP-990): their identity provider trades their ID token, which
// their SSO agent keeps in a file, for a grant to the server's authorization server.
const idTokenFile = typeof context.idp_id_token === 'string' ? join(scratch, 'id-token') : undefined;
if (idTokenFile) writeFileSync(idTokenFile, context.idp_id_token);
const idp = idTokenFile && {
  issuer: context.idp_issuer,
  // Its OpenID metadata lacks fields OIDC requires, which the SDK's discovery refuses.
  token_endpoint: context.idp_token_endpoint,
  client_id: context.idp_client_id,
  id_token_file: idTokenFile,
};
const machine =
  scenario.startsWith('auth/client-credentials-') || workloadToken !== undefined || idp !== undefined;
// A person's sign-in needs nothing in the entry but the URL, as in every client: mcpmux signs
// in when the server answers with OAuth's challenge. Only what a scenario hands out is written.
const handedOut = machine || context.client_id !== undefined;
const oauth = handedOut
  ? {
      // A machine client (SEP-1046) gets its tokens itself, with its secret or its private key.
      ...(machine && !workloadToken && !idp && { grant_type: 'client_credentials' }),
      ...(workloadToken && { grant_type: 'jwt_bearer', assertion_file: workloadToken }),
      ...(idp && { grant_type: 'jwt_bearer', idp }),
      ...(context.client_id && { client_id: context.client_id }),
      ...(context.client_secret && { client_secret: context.client_secret }),
      ...(context.private_key_pem && { private_key: context.private_key_pem }),
      ...(context.signing_algorithm && { signing_algorithm: context.signing_algorithm }),
    }
  : undefined;
const config = join(scratch, 'servers.json');
writeFileSync(
  config,
  JSON.stringify({ mcpServers: { conf: { url, prefix: '', era, ...(oauth && { oauth }) } } }),
);
const env = {
  ...process.env,
  // Tokens of one scenario are not another's.
  XDG_STATE_HOME: join(scratch, 'state'),
  BROWSER: `${process.execPath} ${join(HERE, 'conformance-browser.js')}`,
};
// mcpmux's own client ID metadata document, as a deployment hosts one (the suite's, whose
// authorization servers take it without fetching it); not part of any server's entry.
const identity = ['--client-metadata-url', 'https://conformance-test.local/client-metadata.json'];
const mcpmux = (/** @type {string[]} */ ...args) =>
  execFileSync(process.execPath, [MAIN, ...args, '--config', config, ...identity], {
    env,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });

try {
  if (toolCalls) {
    // Each call as a user would make it; one the server (or mcpmux) refuses does not stop the rest.
    for (const { name, arguments: args } of toolCalls) {
      try {
        mcpmux('call', name, JSON.stringify(args ?? {}));
      } catch {
        // the suite judges what reached it
      }
    }
  } else if (scenario === 'json-schema-2020-12-preservation') {
    // The schema mcpmux shows for one tool, sent back through another: is it as the server wrote it?
    const listed = JSON.parse(mcpmux('inspect', '--json'));
    /** @type {{name: string, inputSchema: unknown}[]} */
    const tools = listed.servers?.[0]?.tools ?? [];
    const schema = tools.find((tool) => tool.name === 'json_schema_2020_12_tool')?.inputSchema;
    mcpmux('call', 'json_schema_echo', JSON.stringify({ schema }));
  } else if (scenario === 'sep-2322-client-request-state') {
    // The server's tools ask for input (input_required): mcpmux asks its own client, which a
    // person would answer; here a client that confirms, as mcpmux serving on stdio sees it.
    const { Client } = await import('@modelcontextprotocol/client');
    const { StdioClientTransport } = await import('@modelcontextprotocol/client/stdio');
    const client = new Client(
      { name: 'conformance-person', version: '1.0.0' },
      { capabilities: { elicitation: { form: {} } } },
    );
    client.setRequestHandler('elicitation/create', () => ({
      action: 'accept',
      content: { confirmed: true },
    }));
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [MAIN, '--config', config, ...identity],
        env: /** @type {Record<string, string>} */ (env),
        stderr: 'inherit',
      }),
    );
    try {
      for (const name of [
        'test_mrtr_echo_state',
        'test_mrtr_no_state',
        'test_mrtr_unrelated',
        'test_mrtr_no_result_type',
      ])
        await client.callTool({ name, arguments: {} }).catch(() => {});
    } finally {
      await client.close();
    }
  } else if (scenario === 'sse-retry') mcpmux('call', 'test_reconnection', '{}');
  else if (scenario.startsWith('auth/')) mcpmux('call', 'test-tool', '{}');
  else {
    const listed = JSON.parse(mcpmux('inspect', '--json'));
    const first = listed.servers?.[0]?.tools?.[0]?.name;
    if (scenario !== 'initialize' && first) mcpmux('call', first, JSON.stringify({ a: 2, b: 3 }));
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
