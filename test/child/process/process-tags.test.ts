// The tag that finds a child's processes wherever they went: how it is written into an
// environment and read back out of one.
import { spawn } from 'node:child_process';
import t from 'tap';
import {
  PROCESS_TAGS_VARIABLE,
  environCarries,
  findTagged,
  newProcessTag,
  withProcessTag,
} from '../../../src/child/process/process-tags.js';

const environ = (env: Record<string, string>) =>
  Object.entries(env)
    .map(([k, v]) => `${k}=${v}`)
    .join('\0') + '\0';

t.test('a tag is added to the tags mcpmux itself inherited, not to the spec', async (t) => {
  const saved = process.env[PROCESS_TAGS_VARIABLE];
  t.teardown(() => {
    if (saved === undefined) delete process.env[PROCESS_TAGS_VARIABLE];
    else process.env[PROCESS_TAGS_VARIABLE] = saved;
  });
  delete process.env[PROCESS_TAGS_VARIABLE];
  const tag = newProcessTag();
  t.match(tag, /^[0-9a-f-]{36}$/, "a UUID: the orphan reaper's shell takes nothing else");
  t.same(withProcessTag({ PATH: '/bin' }, tag), { PATH: '/bin', [PROCESS_TAGS_VARIABLE]: tag });
  process.env[PROCESS_TAGS_VARIABLE] = 'outer';
  t.same(
    withProcessTag({ [PROCESS_TAGS_VARIABLE]: 'from the config' }, tag)[PROCESS_TAGS_VARIABLE],
    `outer ${tag}`,
    "a nested mcpmux's children carry the outer tag too; a configured value cannot drop it",
  );
});

t.test('an environment carries a tag only as a whole word of the variable', async (t) => {
  const tag = newProcessTag();
  t.ok(environCarries(environ({ A: '1', [PROCESS_TAGS_VARIABLE]: tag }), tag));
  t.ok(environCarries(environ({ [PROCESS_TAGS_VARIABLE]: `outer ${tag}` }), tag));
  t.notOk(environCarries(environ({ [PROCESS_TAGS_VARIABLE]: tag.slice(0, -1) }), tag), 'a prefix is not it');
  t.notOk(environCarries(environ({ OTHER: tag }), tag), 'in another variable it is not a tag');
  t.notOk(environCarries('', tag), "a zombie's empty environment");
});

t.test('findTagged finds a living process by its tag, and not this one', async (t) => {
  const tag = newProcessTag();
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1 << 30)'], {
    env: withProcessTag({ PATH: process.env.PATH ?? '' }, tag),
    stdio: 'ignore',
  });
  t.teardown(() => child.kill('SIGKILL'));
  await new Promise((resolve) => child.once('spawn', resolve));
  t.same(await findTagged(tag), [child.pid]);
  t.same(await findTagged(newProcessTag()), [], 'another tag: nothing');
  child.kill('SIGKILL');
  await new Promise((resolve) => child.once('exit', resolve));
  t.same(await findTagged(tag), [], 'gone once it has exited');
});
