/** Waiting with a bound: for a promise, or for a condition to hold. */

/** `promise`, or the fallback once `ms` have passed. */
export async function within<T, F>(promise: Promise<T>, ms: number, fallback: F): Promise<T | F> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<F>((r) => {
    timer = setTimeout(() => r(fallback), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Polls `condition` every 5 ms until it holds or `ms` pass; returns whether it held. */
export async function waitUntil(condition: () => boolean, ms = 5000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) return false;
    await Bun.sleep(5);
  }
  return true;
}
