import t from 'tap';
import { ListChangedNotifier } from '../../../src/session/list-changes/list-changed-notifier.js';

const settle = (ms = 30) => new Promise((resolve) => setTimeout(resolve, ms));

function counting() {
  let sent = 0;
  const notifier = new ListChangedNotifier({
    send: async () => void sent++,
    debounceMs: 5,
  });
  return { notifier, sent: () => sent };
}

t.test('a burst of changes is one notification, and none goes out before the client is ready', async (t) => {
  const { notifier, sent } = counting();
  notifier.changed('tools');
  await settle();
  t.equal(sent(), 0, 'held until ready');
  notifier.ready();
  notifier.changed('tools');
  notifier.changed('tools');
  await settle();
  t.equal(sent(), 1, 'the change seen before ready and the two after: one');
  notifier.close();
});

t.test(
  'changes made while the servers given at start start are never told: every list given from then on has them',
  async (t) => {
    const { notifier, sent } = counting();
    let open!: () => void;
    notifier.holdUntil(new Promise<void>((resolve) => (open = resolve)));
    notifier.ready();
    notifier.changed('resources');
    notifier.changed('resourceTemplates');
    await settle();
    t.equal(sent(), 0, 'nothing while held');
    open();
    await Promise.resolve();
    notifier.given('resources');
    await settle();
    t.equal(sent(), 0, 'templates were not given, nor ever listed: nothing to refresh, not told');
    notifier.changed('resourceTemplates');
    await settle();
    t.equal(sent(), 1, 'a change after the start is told');

    const second = counting();
    let openSecond!: () => void;
    second.notifier.holdUntil(new Promise<void>((resolve) => (openSecond = resolve)));
    second.notifier.ready();
    second.notifier.changed('tools');
    openSecond();
    await Promise.resolve();
    second.notifier.given('tools');
    await settle();
    t.equal(second.sent(), 0, 'every changed list given: nothing to tell');
    second.notifier.changed('tools');
    await settle();
    t.equal(second.sent(), 1, 'a change after that is told');
    notifier.close();
    second.notifier.close();
  },
);

t.test('a start that fails releases the hold too', async (t) => {
  const { notifier, sent } = counting();
  let fail!: (error: Error) => void;
  notifier.holdUntil(new Promise<void>((_, reject) => (fail = reject)));
  notifier.ready();
  notifier.changed();
  fail(new Error('no'));
  await settle();
  t.equal(sent(), 0, 'the change made while starting is not told');
  notifier.changed();
  await settle();
  t.equal(sent(), 1, 'the next one is: the hold is over');
  notifier.close();
});

t.test('flush sends a pending change at once, once, and says whether it sent', async (t) => {
  const { notifier, sent } = counting();
  notifier.changed('tools');
  t.equal(await notifier.flush(), false, 'not before the client is ready');
  notifier.ready();
  t.equal(await notifier.flush(), true, 'sent now');
  t.equal(sent(), 1);
  await settle();
  t.equal(sent(), 1, 'and not again after the quiet time');
  t.equal(await notifier.flush(), false, 'nothing pending: nothing sent');
  const failing = new ListChangedNotifier({
    send: () => Promise.reject(new Error('closed')),
    onError: (error) => t.match(error, /closed/, 'a failed send is reported'),
  });
  failing.ready();
  failing.changed();
  t.equal(await failing.flush(), false, 'a failed send is not a sent one');
  notifier.close();
  failing.close();
});
