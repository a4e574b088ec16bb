// A warning that can come in floods: a few logged a window, the rest counted and told once.
import t from 'tap';
import { createLogger } from '../../src/common/log.js';
import { throttledWarning } from '../../src/common/throttled-warning.js';

t.test('the first few of a window are logged, the rest counted and told when it ends', async (t) => {
  const lines: string[] = [];
  const log = createLogger({ level: 'warn', sink: (line) => lines.push(line) });
  let built = 0;
  const warn = throttledWarning(log, (count, seconds) => `${count} more in ${seconds} s`, {
    perWindow: 2,
    windowMs: 200,
  });
  for (let i = 1; i <= 5; i++) warn(() => (built++, `line ${i}`));
  t.same(lines, ['mcpmux warn: line 1', 'mcpmux warn: line 2']);
  t.equal(built, 2, 'an unlogged warning is never built');
  await new Promise((resolve) => setTimeout(resolve, 300));
  t.same(
    lines.slice(2),
    ['mcpmux warn: 3 more in 0.2 s'],
    'told once the window ends, with nothing more coming',
  );
  warn(() => 'line 6');
  t.same(lines.slice(3), ['mcpmux warn: line 6'], 'a new window logs again');
});

t.test('below the warning level nothing is counted or told', async (t) => {
  const lines: string[] = [];
  const warn = throttledWarning(
    createLogger({ level: 'error', sink: (line) => lines.push(line) }),
    () => 'more',
    { perWindow: 1, windowMs: 50 },
  );
  for (let i = 0; i < 5; i++) warn(() => 'line');
  await new Promise((resolve) => setTimeout(resolve, 100));
  t.same(lines, []);
});
