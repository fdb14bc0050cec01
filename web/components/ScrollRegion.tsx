// A scrollable box for a table: keyboard users reach it with Tab and scroll it with
// the arrow keys (WCAG 2.1.1; axe "scrollable-region-focusable"), and screen readers
// announce it by name. A virtual list (ConnectionTable) follows its scroll position
// (`onScroll`) and goes back to the top when its content changes (`resetKey`).
import { useEffect, useRef, type ReactNode } from 'react';

export function ScrollRegion({ label, children, onScroll, resetKey, tall }: {
  label: string; children: ReactNode; onScroll?: (scrollTop: number) => void; resetKey?: string;
  /** A table read whole (no height limit): it scrolls sideways only, when wider than the page. */
  tall?: boolean;
}) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => { if (box.current) box.current.scrollTop = 0; }, [resetKey]);
  return (
    <div ref={box} className={tall ? 'table-wrap tall' : 'table-wrap'} tabIndex={0} role="region" aria-label={label}
      onScroll={onScroll ? (e) => onScroll(e.currentTarget.scrollTop) : undefined}>
      {children}
    </div>
  );
}
