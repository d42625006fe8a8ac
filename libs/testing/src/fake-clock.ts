/**
 * For `jest.useFakeTimers({ doNotFake: [...DATE_ONLY_FAKE] })`: every timer and tick API stays real, so
 * only the wall clock (`Date`) is faked. The code under test keeps its real timeouts and I/O while a
 * test moves the time it reads.
 */
export const DATE_ONLY_FAKE = [
  'hrtime',
  'nextTick',
  'performance',
  'queueMicrotask',
  'setImmediate',
  'clearImmediate',
  'setInterval',
  'clearInterval',
  'setTimeout',
  'clearTimeout',
] as const;
