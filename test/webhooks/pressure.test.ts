import { describe, expect, it } from 'vitest';
import { IngestPressure } from '../../src/webhooks/pressure.js';

/** A request arrives, or one is answered after `ms` milliseconds. */
type Step = 'enter' | { leave: number };

function run(pressure: IngestPressure, steps: readonly Step[]): void {
  for (const step of steps) {
    if (step === 'enter') pressure.enter();
    else pressure.leave(step.leave);
  }
}

const enter = (n: number): Step[] => Array<Step>(n).fill('enter');
const answered = (ms: number, n = 1): Step[] => Array<Step>(n).fill({ leave: ms });
/** A request that comes and goes before the next one arrives. */
const quick = (n: number): Step[] =>
  Array.from({ length: n }, () => ['enter', { leave: 0 }] as Step[]).flat();

/** Whether `promise` has settled once every pending callback has run (no timers involved). */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(() => (done = true));
  await new Promise((resolve) => setImmediate(resolve));
  return done;
}

describe('IngestPressure', () => {
  // burstAt 3 in flight; slow from a 10 ms average answer.
  const cases: Array<{ name: string; steps: Step[]; high: boolean }> = [
    { name: 'nothing in flight', steps: [], high: false },
    { name: 'fewer than burstAt in flight', steps: enter(2), high: false },
    { name: 'burstAt in flight', steps: enter(3), high: true },
    { name: 'more than burstAt in flight', steps: enter(5), high: true },
    {
      name: 'one of burstAt answered quickly: below burstAt again',
      steps: [...enter(3), ...answered(0)],
      high: false,
    },
    {
      name: 'burstAt still in flight after one of burstAt + 1 answered',
      steps: [...enter(4), ...answered(0)],
      high: true,
    },
    { name: 'quick answers, one in flight', steps: [...quick(20), 'enter'], high: false },
    { name: 'a slow answer, nothing in flight', steps: quick(1).map(slow), high: false },
    {
      name: 'a slow answer, then one request in flight',
      steps: [...quick(1).map(slow), 'enter'],
      high: true,
    },
    {
      name: 'slow answers with one still in flight',
      steps: [...enter(2), ...answered(100)],
      high: true,
    },
    {
      name: 'slow answers, nothing in flight any more',
      steps: [...enter(2), ...answered(100, 2)],
      high: false,
    },
    {
      name: 'a slow answer is not forgotten after one quick one',
      steps: [...quick(1).map(slow), ...quick(1), 'enter'],
      high: true,
    },
    {
      name: 'a slow answer is outweighed by many quick ones (a moving average)',
      steps: [...quick(1).map(slow), ...quick(20), 'enter'],
      high: false,
    },
    {
      name: 'answers slow again after quick ones',
      steps: [...quick(20), ...quick(3).map(slow), 'enter'],
      high: true,
    },
  ];

  it.each(cases)('$name: high is $high', ({ steps, high }) => {
    const pressure = new IngestPressure(3, 10);
    run(pressure, steps);
    expect(pressure.high).toBe(high);
  });

  it('whenCalm resolves at once when not high', async () => {
    const pressure = new IngestPressure(3, 10);
    expect(await settled(pressure.whenCalm())).toBe(true);
    run(pressure, enter(2));
    expect(await settled(pressure.whenCalm())).toBe(true);
    // Slow answers, but nothing in flight.
    run(pressure, answered(100, 2));
    expect(pressure.high).toBe(false);
    expect(await settled(pressure.whenCalm())).toBe(true);
  });

  it('whenCalm resolves exactly when a burst ends', async () => {
    const pressure = new IngestPressure(3, 10);
    run(pressure, enter(4));
    const calm = [pressure.whenCalm(), pressure.whenCalm()];
    expect(await settled(calm[0]!)).toBe(false);
    pressure.enter();
    pressure.leave(0);
    pressure.leave(0);
    // Three still in flight.
    expect(pressure.high).toBe(true);
    expect(await settled(Promise.race(calm))).toBe(false);
    pressure.leave(0);
    expect(pressure.high).toBe(false);
    expect(await settled(Promise.all(calm))).toBe(true);
  });

  it('whenCalm resolves exactly when slow answers stop mattering', async () => {
    const pressure = new IngestPressure(3, 10);
    run(pressure, [...quick(1).map(slow), ...enter(2)]);
    expect(pressure.high).toBe(true);
    const calm = pressure.whenCalm();
    // A quick answer, but the average is still slow and one is in flight.
    pressure.leave(0);
    expect(pressure.high).toBe(true);
    expect(await settled(calm)).toBe(false);
    pressure.leave(0);
    expect(pressure.high).toBe(false);
    expect(await settled(calm)).toBe(true);
  });

  it('whenCalm resolves once quick answers bring the average down, requests still in flight', async () => {
    const pressure = new IngestPressure(100, 10);
    run(pressure, [...quick(1).map(slow), 'enter']);
    const calm = pressure.whenCalm();
    // One request stays in flight throughout; others come and go quickly.
    let answers = 0;
    while (pressure.high) {
      expect(await settled(calm)).toBe(false);
      run(pressure, quick(1));
      answers += 1;
      expect(answers).toBeLessThan(50);
    }
    expect(answers).toBeGreaterThan(1);
    expect(await settled(calm)).toBe(true);
  });

  it('a new burst needs a new whenCalm', async () => {
    const pressure = new IngestPressure(2, 10);
    run(pressure, enter(2));
    const first = pressure.whenCalm();
    pressure.leave(0);
    expect(await settled(first)).toBe(true);
    pressure.enter();
    expect(pressure.high).toBe(true);
    const second = pressure.whenCalm();
    expect(await settled(second)).toBe(false);
    pressure.leave(0);
    expect(await settled(second)).toBe(true);
  });
});

/** The same step, answered after 100 ms. */
function slow(step: Step): Step {
  return step === 'enter' ? step : { leave: 100 };
}
