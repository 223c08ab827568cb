import { SystemTimers } from '@runload/core';
import { FakeClock, ManualTimers } from '@runload/core/testing';
import { timersContract } from '@runload/core/contract-tests';

timersContract('system (the event loop)', () => ({
  timers: new SystemTimers(),
  // Real time has to pass for real timers: this is the adapter under test, not a synchronisation.
  elapse: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
}));

timersContract('manual (tests)', () => {
  const timers = new ManualTimers(new FakeClock());
  return { timers, elapse: (ms) => timers.advance(ms) };
});
