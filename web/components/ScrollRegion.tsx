// A scrollable box for a table: keyboard users reach it with Tab and scroll it with
// the arrow keys (WCAG 2.1.1; axe "scrollable-region-focusable"), and screen readers
// announce it by name.
import type { ReactNode } from 'react';

export function ScrollRegion({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="table-wrap" tabIndex={0} role="region" aria-label={label}>
      {children}
    </div>
  );
}
