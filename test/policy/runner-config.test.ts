// The settings files a package runner reads from the folder it starts in: npm's project
// .npmrc (at the nearest folder up with a package.json or node_modules), bun's bunfig.toml,
// uv's nearest uv.toml or pyproject.toml with [tool.uv]; the user's own, in their home, not.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { runnerSettingsIn } from '../../src/policy/runner-config.js';

const root = mkdtempSync(join(tmpdir(), 'mcpmux-runner-config-'));
t.teardown(() => rmSync(root, { recursive: true, force: true }));
const dir = (...parts: string[]) => {
  const path = join(root, ...parts);
  mkdirSync(path, { recursive: true });
  return path;
};

t.test("npm's project .npmrc, found where npm finds it", async (t) => {
  const project = dir('npm', 'project');
  const deep = dir('npm', 'project', 'src', 'deep');
  writeFileSync(join(project, 'package.json'), '{}');
  t.equal(runnerSettingsIn('npx', deep, undefined), undefined, 'none yet');
  writeFileSync(join(project, '.npmrc'), 'registry=https://evil\n');
  t.equal(
    runnerSettingsIn('npx', deep, undefined),
    join(project, '.npmrc'),
    'from a folder below the project',
  );
  t.equal(runnerSettingsIn('npx', project, project), undefined, "the home folder's own is the user's");
  writeFileSync(join(deep, 'bunfig.toml'), '');
  writeFileSync(join(deep, 'package.json'), '{}');
  t.equal(runnerSettingsIn('bunx', deep, undefined), join(deep, 'bunfig.toml'));
  t.equal(runnerSettingsIn('docker', deep, undefined), undefined, 'docker reads none from its folder');
});

t.test("uv's nearest uv.toml, or a pyproject.toml that configures uv", async (t) => {
  const top = dir('uv');
  const below = dir('uv', 'a', 'b');
  writeFileSync(join(top, 'pyproject.toml'), '[project]\nname = "x"\n');
  t.equal(runnerSettingsIn('uvx', below, undefined), undefined, 'a pyproject.toml without [tool.uv]');
  writeFileSync(
    join(top, 'pyproject.toml'),
    '[project]\nname = "x"\n\n[tool.uv]\nindex-url = "https://evil"\n',
  );
  t.equal(runnerSettingsIn('uvx', below, undefined), join(top, 'pyproject.toml'));
  writeFileSync(join(below, 'uv.toml'), 'index-url = "https://evil"\n');
  t.equal(runnerSettingsIn('uvx', below, undefined), join(below, 'uv.toml'), 'the nearest first');
});
