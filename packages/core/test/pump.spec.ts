/** The single-flight loop: one pass at a time, and requests during a pass make exactly one more. */
import { expect } from 'chai';
import { Pump } from '@runload/core';

/** A pass the test ends itself: each call waits until `release` is called for it. */
function gatedPasses() {
  const gates: (() => void)[] = [];
  let running = 0;
  let most = 0;
  const pass = () =>
    new Promise<void>((resolve) => {
      running += 1;
      most = Math.max(most, running);
      gates.push(() => {
        running -= 1;
        resolve();
      });
    });
  return {
    pass,
    started: () => gates.length,
    most: () => most,
    release: (i: number) => gates[i]!(),
  };
}

describe('Pump', () => {
  it('runs one pass for a request when idle', async () => {
    let passes = 0;
    const pump = new Pump(async () => {
      passes += 1;
    });
    await pump.request();
    expect(passes).to.equal(1);
    expect(pump.busy()).to.equal(false);
  });

  it('runs one more pass for any number of requests made during a pass, never two at once', async () => {
    const g = gatedPasses();
    const pump = new Pump(g.pass);
    const first = pump.request();
    const during = [pump.request(), pump.request(), pump.request()];
    expect(g.started()).to.equal(1);
    g.release(0);
    // The second pass starts once the first ended.
    while (g.started() < 2) await Promise.resolve();
    g.release(1);
    await Promise.all([first, ...during]);
    expect(g.started()).to.equal(2);
    expect(g.most()).to.equal(1);
    expect(pump.busy()).to.equal(false);
  });

  it('a request made after the flight ended starts a new one', async () => {
    let passes = 0;
    const pump = new Pump(async () => {
      passes += 1;
    });
    await pump.request();
    await pump.request();
    expect(passes).to.equal(2);
  });

  it('a request made from inside a pass asks for one more (the flight is set before the pass runs)', async () => {
    let passes = 0;
    const pump: Pump = new Pump(async () => {
      passes += 1;
      if (passes === 1) void pump.request();
    });
    await pump.request();
    expect(passes).to.equal(2);
  });

  it('a pass that takes the request serves it: no pass more', async () => {
    const g = gatedPasses();
    let took: boolean | null = null;
    const pump: Pump = new Pump(async () => {
      await g.pass();
      took = pump.take();
    });
    const flight = pump.request();
    void pump.request();
    expect(pump.requested()).to.equal(true);
    g.release(0);
    await flight;
    expect(took).to.equal(true);
    expect(g.started()).to.equal(1);
  });

  it('starts no further pass once halted', async () => {
    const g = gatedPasses();
    let halted = false;
    const pump = new Pump(g.pass, () => halted);
    const flight = pump.request();
    void pump.request();
    halted = true;
    g.release(0);
    await flight;
    expect(g.started()).to.equal(1);
  });

  it('a failing pass rejects its flight and leaves the pump ready for the next request', async () => {
    let fail = true;
    const pump = new Pump(async () => {
      if (fail) throw new Error('pass failed');
    });
    let error: unknown = null;
    await pump.request().catch((e: unknown) => (error = e));
    expect((error as Error).message).to.equal('pass failed');
    expect(pump.busy()).to.equal(false);
    fail = false;
    await pump.request();
  });
});
