// add_server from a registry entry, up to the spec that starts it: what the model may and may
// not give, what is checked before the person is asked, the form they are asked, what is kept
// with their consent, and what persist writes (references, never values).
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { bm25Ranker } from '../../src/search/tool-index.js';
import type { ServerSpec } from '../../src/child/server-spec.js';
import { MuxError } from '../../src/common/errors.js';
import { KeptSecrets } from '../../src/secrets/kept-secrets.js';
import { McpRegistries } from '../../src/mcp-registry/mcp-registries.js';
import { prepareRegistryAdd, type RegistryAddContext } from '../../src/mcp-registry/registry-add.js';
import { packageEntry, registryFetch, scratchDir, type Served } from '../helpers/registry-entries.js';

const KEY = 'sk-live-0123456789';

const keyed = packageEntry('io.github.acme/keyed', 'oci', 'ghcr.io/acme/keyed:1.0.0', {
  environmentVariables: [
    { name: 'ACME_KEY', description: 'Your Acme key', isRequired: true, isSecret: true },
    { name: 'ACME_REGION', default: 'eu' },
  ],
});
const needsRoot = packageEntry('io.github.acme/files', 'npm', '@acme/files', {
  packageArguments: [{ type: 'named', name: '--root', description: 'The folder to serve', isRequired: true }],
});
const secretFlag = packageEntry('io.github.acme/flagged', 'npm', '@acme/flagged', {
  packageArguments: [{ type: 'named', name: '--token', isRequired: true, isSecret: true }],
});
const python = packageEntry('io.github.acme/py', 'pypi', 'acme-mcp');
const keyInUrl: Served = {
  server: {
    name: 'io.github.acme/key-in-url',
    description: 'Acme, with the key in its URL',
    version: '1.0.0',
    remotes: [
      {
        type: 'streamable-http',
        url: 'https://{region}.acme.example/{api_key}/mcp',
        variables: {
          region: { default: 'eu', choices: ['eu', 'us'] },
          api_key: { isSecret: true, isRequired: true, description: 'Your Acme key' },
        },
      },
    ],
  },
};
const hosted: Served = {
  server: {
    name: 'io.github.acme/hosted',
    description: 'Acme, hosted',
    version: '2.0.0',
    remotes: [
      {
        type: 'streamable-http',
        url: 'https://mcp.acme.example/{tenant}/mcp',
        headers: [{ name: 'Authorization', isRequired: true, isSecret: true }],
      },
    ],
  },
};

/** A PATH with npx and docker (empty programs), and no uvx. */
function programs(t: Test): string {
  const dir = scratchDir(t, 'mcpmux-bin');
  for (const name of ['npx', 'docker']) {
    writeFileSync(join(dir, name), '#!/bin/sh\n');
    chmodSync(join(dir, name), 0o755);
  }
  return dir;
}

function setup(
  t: Test,
  answer: Record<string, unknown> | undefined,
  overrides: Partial<RegistryAddContext> = {},
) {
  const { fetch } = registryFetch(() => [keyed, needsRoot, secretFlag, python, hosted, keyInUrl]);
  const kept = new KeptSecrets(scratchDir(t, 'mcpmux-secrets'));
  const asked: Record<string, unknown>[] = [];
  const admitted: ServerSpec[] = [];
  const ctx: RegistryAddContext = {
    registries: new McpRegistries({
      urls: ['https://registry.acme.example'],
      dir: scratchDir(t, 'mcpmux-listings'),
      ranker: bm25Ranker,
      fetch,
    }),
    kept,
    keptIn: kept.dir,
    allowModelSecrets: false,
    lookup: { path: programs(t), cwd: '/' },
    admit: (spec) => {
      admitted.push(spec);
      return spec;
    },
    askPerson:
      answer &&
      (async (params) => {
        asked.push(params);
        return answer;
      }),
    configPath: '/home/me/.config/mcpmux/servers.json',
    ...overrides,
  };
  return { ctx, kept, asked, admitted };
}

const rejectsWith = async (t: Test, work: Promise<unknown>, code: string, message: RegExp) => {
  const error = await work.then(
    () => undefined,
    (e: unknown) => e,
  );
  t.ok(error instanceof MuxError, 'fails with a MuxError');
  t.match(error, { code, message });
  return (error as Error).message;
};

t.test('the person gives the secret; with consent it is kept, and persist refers to it', async (t) => {
  const { ctx, kept, asked } = setup(t, {
    action: 'accept',
    content: { ACME_KEY: KEY, keep_for_next_time: true },
  });
  const added = await prepareRegistryAdd({ name: 'acme', entry: 'io.github.acme/keyed' }, ctx);
  t.match(added.spec, {
    transport: 'stdio',
    command: 'docker',
    args: ['run', '-i', '--rm', '-e', 'ACME_KEY', '-e', 'ACME_REGION', 'ghcr.io/acme/keyed:1.0.0'],
    env: { ACME_KEY: KEY, ACME_REGION: 'eu' },
    registryEntry: 'io.github.acme/keyed',
  });
  t.equal(asked.length, 1);
  t.match(asked[0], {
    message: /io\.github\.acme\/keyed \(OCI ghcr\.io\/acme\/keyed:1\.0\.0\), which needs ACME_KEY/,
    requestedSchema: {
      properties: {
        ACME_KEY: { type: 'string', description: /^Your Acme key \(secret/ },
        keep_for_next_time: {
          type: 'boolean',
          default: false,
          description: new RegExp(kept.dir.replace(/[.]/g, '\\.')),
        },
      },
      required: ['ACME_KEY'],
    },
  });
  t.same(kept.values('registry.acme.example', 'io.github.acme/keyed'), { ACME_KEY: KEY });
  t.same(added.keptNow, ['ACME_KEY']);
  t.same(added.configEntry, {
    command: 'docker',
    args: ['run', '-i', '--rm', '-e', 'ACME_KEY', '-e', 'ACME_REGION', 'ghcr.io/acme/keyed:1.0.0'],
    env: { ACME_KEY: '${secret:io.github.acme/keyed/ACME_KEY}', ACME_REGION: 'eu' },
  });
  t.notOk('registryEntry' in added.configuredSpec, 'persist adopts the spec as the config loads it');

  // The next add of the entry asks nobody.
  const again = await prepareRegistryAdd(
    { name: 'acme2', entry: 'io.github.acme/keyed' },
    { ...ctx, askPerson: undefined },
  );
  t.match(again.spec, { env: { ACME_KEY: KEY } });
  t.equal(asked.length, 1);
});

t.test('not kept: persist writes ${NAME}, and says so', async (t) => {
  const { ctx, kept } = setup(t, { action: 'accept', content: { ACME_KEY: KEY } });
  const added = await prepareRegistryAdd(
    { name: 'acme', entry: 'io.github.acme/keyed', fields: { prefix: 'a' } },
    ctx,
  );
  t.same(kept.list(), []);
  t.same(added.unkept, ['ACME_KEY']);
  t.match(added.configEntry, { env: { ACME_KEY: '${ACME_KEY}' }, prefix: 'a' });
  t.equal(added.spec.prefix, 'a', "add_server's own fields apply");
});

t.test('declined, dismissed or left empty: the add fails, naming the variables only', async (t) => {
  for (const [answer, said] of [
    [
      { action: 'decline' },
      /the person declined the form for ACME_KEY of io\.github\.acme\/keyed .*nothing was started/,
    ],
    [{ action: 'cancel' }, /the person dismissed the form/],
    [{ action: 'accept', content: { ACME_KEY: '' } }, /came back without ACME_KEY/],
  ] as const) {
    const { ctx, kept } = setup(t, answer);
    await rejectsWith(
      t,
      prepareRegistryAdd({ name: 'acme', entry: 'io.github.acme/keyed' }, ctx),
      'DECLINED',
      said,
    );
    t.same(kept.list(), []);
  }
});

t.test(
  'a client that cannot ask: the error says what to put in the config, with no value in it',
  async (t) => {
    const { ctx, kept } = setup(t, undefined);
    // A value kept for another variable of the entry must not be printed either.
    kept.keep('registry.acme.example', 'io.github.acme/hosted', { Unrelated: 'x' });
    const message = await rejectsWith(
      t,
      prepareRegistryAdd({ name: 'acme', entry: 'io.github.acme/keyed' }, ctx),
      'SECRET_REQUIRED',
      /needs ACME_KEY, which only the person may give, and this client cannot ask them/,
    );
    t.match(
      message,
      /\(\/home\/me\/\.config\/mcpmux\/servers\.json\) as \{"acme":\{"command":"docker","args":\["run","-i","--rm","-e","ACME_KEY","-e","ACME_REGION","ghcr\.io\/acme\/keyed:1\.0\.0"\],"env":\{"ACME_KEY":"\$\{ACME_KEY\}","ACME_REGION":"eu"\}\}\} and set ACME_KEY in mcpmux's environment/,
    );
  },
);

t.test('the model may not pass a secret, unless --allow-model-secrets', async (t) => {
  const { ctx, asked } = setup(t, { action: 'accept', content: { ACME_KEY: KEY } });
  const request = { name: 'acme', entry: 'io.github.acme/keyed', env: { ACME_KEY: 'from-the-model' } };
  const message = await rejectsWith(
    t,
    prepareRegistryAdd(request, ctx),
    'SECRET_REQUIRED',
    /ACME_KEY of registry entry 'io\.github\.acme\/keyed' .* is a secret, which only the person gives/,
  );
  t.notMatch(message, /from-the-model/);
  t.match(message, /"ACME_KEY":"\$\{ACME_KEY\}"/);
  t.equal(asked.length, 0);
  const allowed = await prepareRegistryAdd(request, { ...ctx, allowModelSecrets: true });
  t.match(allowed.spec, { env: { ACME_KEY: 'from-the-model' } });
  t.equal(asked.length, 0, 'nobody is asked for what was given');
  t.same(allowed.unkept, [], 'a given secret is not reported unkept');
});

t.test('checked before the person is asked: the runtime, the other inputs, the policy', async (t) => {
  const { ctx, asked } = setup(t, { action: 'accept', content: { ACME_KEY: KEY } });
  await rejectsWith(
    t,
    prepareRegistryAdd({ name: 'py', entry: 'io.github.acme/py' }, ctx),
    'NOT_SUPPORTED',
    /registry entry 'io\.github\.acme\/py' \(PyPI acme-mcp==1\.0\.0\) runs through uvx, which is not on mcpmux's PATH: install uv/,
  );
  await rejectsWith(
    t,
    prepareRegistryAdd({ name: 'files', entry: 'io.github.acme/files' }, ctx),
    'INVALID_ARGUMENTS',
    /needs --root \(The folder to serve\): give arguments\["--root"\]/,
  );
  const files = await prepareRegistryAdd(
    { name: 'files', entry: 'io.github.acme/files', arguments: { '--root': '/srv' } },
    ctx,
  );
  t.match(files.spec, { command: 'npx', args: ['-y', '@acme/files@1.0.0', '--root=/srv'] });
  await rejectsWith(
    t,
    prepareRegistryAdd({ name: 'flagged', entry: 'io.github.acme/flagged' }, ctx),
    'NOT_ALLOWED',
    /would put its secret --token on the command line, .*The entry's publisher should read it from an environment variable marked isSecret/,
  );
  const refusing = {
    ...ctx,
    admit: () => {
      throw new MuxError('NOT_ALLOWED', 'not allowed by --allow-command');
    },
  };
  await rejectsWith(
    t,
    prepareRegistryAdd({ name: 'acme', entry: 'io.github.acme/keyed' }, refusing),
    'NOT_ALLOWED',
    /--allow-command/,
  );
  t.equal(asked.length, 0, 'the person was asked nothing');
});

t.test('a remote entry: its URL variables from arguments, its secret header asked', async (t) => {
  const { ctx } = setup(t, { action: 'accept', content: { Authorization: 'Bearer t0k' } });
  await rejectsWith(
    t,
    prepareRegistryAdd({ name: 'hosted', entry: 'io.github.acme/hosted' }, ctx),
    'INVALID_ARGUMENTS',
    /needs tenant \(\{tenant\} in the URL\): give arguments\["tenant"\]/,
  );
  const added = await prepareRegistryAdd(
    { name: 'hosted', entry: 'io.github.acme/hosted', arguments: { tenant: 'me' } },
    ctx,
  );
  t.match(added.spec, {
    transport: 'http',
    url: 'https://mcp.acme.example/me/mcp',
    headers: { Authorization: 'Bearer t0k' },
    registryEntry: 'io.github.acme/hosted',
  });
  t.same(added.configEntry, {
    url: 'https://mcp.acme.example/me/mcp',
    headers: { Authorization: '${Authorization}' },
  });
});

t.test('an entry no registry lists', async (t) => {
  const { ctx } = setup(t, undefined);
  await rejectsWith(
    t,
    prepareRegistryAdd({ name: 'x', entry: 'io.github.nobody/nothing' }, ctx),
    'ENTRY_NOT_FOUND',
    /no registry lists 'io\.github\.nobody\/nothing' \(asked: registry\.acme\.example\)\. .*find_servers/,
  );
});

t.test("a secret in a remote's URL: asked of the person, sent, and written as a reference", async (t) => {
  const { ctx, asked } = setup(t, { action: 'accept', content: { api_key: KEY } });
  const refused = await rejectsWith(
    t,
    prepareRegistryAdd({ name: 'u', entry: 'io.github.acme/key-in-url', arguments: { api_key: KEY } }, ctx),
    'SECRET_REQUIRED',
    /api_key of registry entry .* is a secret, which only the person gives, never the model/,
  );
  t.notMatch(refused, KEY, 'the value the model passed is not echoed');
  await rejectsWith(
    t,
    prepareRegistryAdd({ name: 'u', entry: 'io.github.acme/key-in-url', arguments: { region: 'mars' } }, ctx),
    'INVALID_ARGUMENTS',
    /region must be one of eu, us/,
  );
  const added = await prepareRegistryAdd(
    { name: 'u', entry: 'io.github.acme/key-in-url', arguments: { region: 'us' } },
    ctx,
  );
  t.match(added.spec, { transport: 'http', url: `https://us.acme.example/${KEY}/mcp` });
  t.equal(added.source, 'remote https://{region}.acme.example/{api_key}/mcp', 'shown as its template');
  t.match(asked[0], {
    message: /It will run: https:\/\/us\.acme\.example\/\$\{api_key\}\/mcp$/,
    requestedSchema: { properties: { api_key: { description: /URL, which mcpmux never shows/ } } },
  });
  t.same(added.configEntry, { url: 'https://us.acme.example/${api_key}/mcp' });
  t.same(added.secretValues, { api_key: KEY });
});
