// Controlled-or-uncontrolled state, the usual React pattern: when the parent passes a
// value (not undefined) it wins and changes only go through `onChange` (so view state
// can live in the URL); otherwise the component keeps its own state.

import { useCallback, useRef, useState } from 'react';

export function useControllable<T>(value: T | undefined, initial: T, onChange?: (v: T) => void): [T, (v: T) => void] {
  const [own, setOwn] = useState<T>(initial);
  const controlled = value !== undefined;
  const onChangeRef = useRef(onChange);
  onChangeRef.current = onChange;
  const set = useCallback((v: T) => {
    if (!controlled) setOwn(v);
    onChangeRef.current?.(v);
  }, [controlled]);
  return [controlled ? (value as T) : own, set];
}
