// Globs with picomatch loaded on first use: not before, and its options passed through.
import { createRequire } from 'node:module';
import t from 'tap';
import { compileGlob, scanGlob } from '../../src/common/glob-matcher.js';

const require = createRequire(import.meta.url);
const picomatchLoaded = () => Object.keys(require.cache).some((file) => /[\\/]picomatch[\\/]/.test(file));

t.test('picomatch is loaded by the first glob, not with the module', async (t) => {
  t.notOk(picomatchLoaded(), 'not at import');
  t.equal(scanGlob('src/**/*.ts').base, 'src');
  t.ok(picomatchLoaded(), 'after the first use');
});

t.test('one glob or any of several', async (t) => {
  const one = compileGlob('read_*');
  t.ok(one('read_file'));
  t.notOk(one('write_file'));
  const any = compileGlob(['read_*', 'list_*']);
  t.ok(any('list_dirs'));
  t.notOk(any('delete_all'));
  t.notOk(compileGlob('*.ts')('.hidden.ts'), 'dot files only with dot: true');
  t.ok(compileGlob('*.ts', { dot: true })('.hidden.ts'));
});

t.test('scanGlob tells a glob from a plain path', async (t) => {
  t.match(scanGlob('/opt/mcp/**/server.js'), { isGlob: true, base: '/opt/mcp', glob: '**/server.js' });
  t.match(scanGlob('node'), { isGlob: false });
});
