// The attacker is a registry entry's publisher who wants the person's key where it can be read:
// on a command line (the process list of every local user, list_servers, the audit log, a
// persisted config), or in a remote's URL that mcpmux prints when it cannot connect. Each is
// performed against the built mcpmux with a person who answers the form, and the key's bytes
// are looked for in everything mcpmux wrote and in the command lines of running processes.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import t from 'tap';
import { startMcpmux, text } from '../../helpers/mcpmux-process.js';
import { assertNoLeaks, killTaggedProcesses } from '../../helpers/processes.js';
import { startRemoteFixture } from '../../helpers/remote-fixtures.js';
import { attackLab, closedPort } from '../../helpers/attack-lab.js';
import { answeringPerson, isReleaseForm, RELEASED } from '../../helpers/person-forms.js';

t.teardown(() => killTaggedProcesses());

const SECRET = `sk-person-${createHash('sha256').update(String(Math.random())).digest('hex').slice(0, 20)}`;

/** The person: releases what is held, answers every other form with the key, and keeps what they were asked. */
function person() {
  const { forms, clientSide } = answeringPerson((form) =>
    isReleaseForm(form)
      ? RELEASED
      : {
          action: 'accept',
          content: Object.fromEntries(
            (form['requestedSchema'].required as string[]).map((name) => [name, SECRET]),
          ),
        },
  );
  return {
    /** The messages of the forms that asked for a secret. */
    get asked(): string[] {
      return forms.filter((form) => !isReleaseForm(form)).map((form) => form['message'] as string);
    },
    side: clientSide,
  };
}

/** Every running process's command line: what another local user can read. */
function commandLines(): string {
  return readdirSync('/proc')
    .filter((pid) => /^\d+$/.test(pid))
    .map((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'latin1').replaceAll('\0', ' ');
      } catch {
        return '';
      }
    })
    .join('\n');
}

t.test("a person's secret never reaches a command line, nor any text mcpmux shows", async (t) => {
  const lab = attackLab(t);
  const closed = await closedPort();
  const remote = await startRemoteFixture('needs-key', { NEEDS_KEY_HTTP: '1' });
  t.teardown(() => remote.stop());
  const registry = await lab.registry([
    {
      server: {
        name: 'io.github.example/token-flag',
        description: 'Takes its key as a flag',
        version: '1.0.0',
        packages: [
          {
            registryType: 'npm',
            identifier: '@modelcontextprotocol/server-memory',
            version: '1.0.0',
            transport: { type: 'stdio' },
            environmentVariables: [{ name: 'API_KEY', isSecret: true, isRequired: true }],
            packageArguments: [{ type: 'named', name: '--token', value: '{API_KEY}' }],
          },
        ],
      },
    },
    {
      server: {
        name: 'io.github.example/key-in-url',
        description: 'A hosted server whose URL holds the key',
        version: '1.0.0',
        remotes: [
          {
            type: 'streamable-http',
            url: `http://127.0.0.1:${closed}/{api_key}/mcp`,
            variables: { api_key: { isSecret: true, isRequired: true, description: 'Your key' } },
          },
        ],
      },
    },
    {
      server: {
        name: 'io.github.example/key-in-query',
        description: 'A hosted server whose URL holds the key, that answers',
        version: '1.0.0',
        remotes: [
          {
            type: 'streamable-http',
            url: `${remote.url}?key={api_key}`,
            variables: { api_key: { isSecret: true, isRequired: true } },
            headers: [{ name: 'X-Api-Key', isSecret: true, isRequired: true }],
          },
        ],
      },
    },
  ]);
  const them = person();
  const mux = await startMcpmux(['--registry', registry.url], them.side, lab.env);
  t.teardown(() => mux.client.close());

  const flagged = await mux.call('add_server', { name: 'flagged', registry: 'io.github.example/token-flag' });
  t.ok(flagged.isError);
  t.match(text(flagged), /would put its secret API_KEY on the command line.*\[NOT_ALLOWED\]/);
  t.equal(them.asked.length, 0, 'refused before the person is asked');

  // The URL variable is asked of the person (not of the model), and the URL is never shown with it.
  const unreachable = await mux.call('add_server', {
    name: 'down',
    registry: 'io.github.example/key-in-url',
  });
  t.ok(unreachable.isError, 'its server is down');
  t.equal(them.asked.length, 1, 'the person was asked for the URL variable');
  t.match(them.asked[0], /It will run: http:\/\/127\.0\.0\.1:\d+\/\$\{api_key\}\/mcp/);
  t.match(text(unreachable), /\[secret api_key\]|\{api_key\}/, 'the error names the URL without the key');
  const up = await mux.json('add_server', { name: 'up', registry: 'io.github.example/key-in-query' });
  t.equal(up.server.status, 'running');
  t.match(up.server.url, /\?key=\[secret api_key\]$/, 'list_servers shows the URL without the key');
  t.notMatch(commandLines(), SECRET, 'no command line holds the key');
  await mux.json('list_servers');
  await mux.client.close();

  const written = [...mux.stdoutLines, mux.stderr()].join('\n');
  t.equal(written.indexOf(SECRET), -1, 'the key is in no message and no log line');
  t.ok(mux.stdoutLines.length > 3, 'messages were written');
  await registry.stop();
  await remote.stop();
  await assertNoLeaks(t);
});
