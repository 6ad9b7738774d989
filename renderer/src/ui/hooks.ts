import { useEffect, useState } from 'react';
import type { Observable } from 'rxjs';

/** The latest value of an observable (re-subscribes when `observable` changes identity). */
export function useObservable<T>(observable: Observable<T> | undefined, initial: T): T {
  const [value, setValue] = useState<T>(initial);
  useEffect(() => {
    if (!observable) return undefined;
    const subscription = observable.subscribe(setValue);
    return () => subscription.unsubscribe();
  }, [observable]);
  return value;
}

/** Re-renders every `ms` milliseconds (for relative times such as "synced 2 min ago"). */
export function useNow(ms: number): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(timer);
  }, [ms]);
  return now;
}

/**
 * Runs `task` once the next frame has been painted (the frame's callback, then a task after it): work the cashier
 * must see only after the answer to their action (e.g. the grid's way back to every tile after a scan), so it never
 * holds that frame back. @returns a function that cancels it if it has not run yet.
 */
export function afterNextPaint(task: () => void): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const frame = requestAnimationFrame(() => {
    timer = setTimeout(task, 0);
  });
  return () => {
    cancelAnimationFrame(frame);
    clearTimeout(timer);
  };
}
