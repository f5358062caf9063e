import { eventually, StopWaiting } from './eventually';

/** An assertion that fails until its `passesOn`-th call, counting its calls. */
function passingOn(passesOn: number): { assertion: () => string; calls: () => number } {
  let calls = 0;
  return {
    assertion: () => {
      calls++;
      if (calls < passesOn) throw new Error(`call ${calls}: not yet`);
      return 'passed';
    },
    calls: () => calls,
  };
}

test('waits past withinMs until the assertion passes, and says once what was still wrong', async () => {
  const written: string[] = [];
  const write = jest.spyOn(process.stderr, 'write').mockImplementation((chunk) => written.push(String(chunk)) > 0);
  try {
    const { assertion, calls } = passingOn(5);
    await expect(eventually(assertion, { withinMs: 0, everyMs: 1 })).resolves.toBe('passed');
    expect(calls()).toBe(5);
    expect(written).toHaveLength(1);
    expect(written[0]).toMatch(/^eventually: still waiting after 0 ms .*\n.*call 1: not yet/s);
  } finally {
    write.mockRestore();
  }
});

test('ends the wait at once when the assertion throws StopWaiting', async () => {
  let calls = 0;
  const gaveUp = eventually(
    () => {
      calls++;
      if (calls === 2) throw new StopWaiting('the process exited');
      throw new Error('not yet');
    },
    { everyMs: 1 },
  );
  await expect(gaveUp).rejects.toThrow(new StopWaiting('the process exited'));
  expect(calls).toBe(2);
});

test('a change still missing long past its quiet-machine time fails the wait with the last failure', async () => {
  jest.useFakeTimers();
  const write = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
  try {
    let calls = 0;
    const wait = eventually(
      () => {
        calls++;
        throw new Error(`call ${calls}: never`);
      },
      { withinMs: 100, everyMs: 1_000 },
    );
    const outcome = wait.then(
      () => 'passed',
      (error: Error) => error.message,
    );
    await jest.advanceTimersByTimeAsync(59_000);
    expect(calls).toBe(60);
    await jest.advanceTimersByTimeAsync(2_000);
    await expect(outcome).resolves.toBe('call 61: never');
  } finally {
    write.mockRestore();
    jest.useRealTimers();
  }
});
