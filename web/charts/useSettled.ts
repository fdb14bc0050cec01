// A value that follows another once it has stopped changing: what a debounced search
// box asks (components/ConnectionTable.tsx) and what a screen reader should hear of a
// range that moves every frame of a gesture (ChartToolbar.tsx).
import { useEffect, useState } from 'react';

/** `value`, once it has not changed for `ms`. */
export function useSettled<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}
