// Refusals and errors are said at the top of the page, in view, whoever raises them
// (issue 42, item 2): a refused `#url=javascript:…` used to render below the example
// list, 2,866 px down a 1,000 px window, where nobody looked.
//
// The App renders one <NoticeArea> first in <main>: a live region (WAI-ARIA 1.2,
// aria-live="assertive": a refusal interrupts, it answers what the person just did),
// kept in view by position: sticky. Any part of the page renders <TopNotice>; React
// portals it into that area, so the part keeps its own state and the message shows at
// the top. A notice stays until its Dismiss button is pressed or its text is replaced
// (a new load, a new address); a dismissed text that comes back is shown again.
// Without an area (a component tested alone) the notice renders where it stands.
import { createContext, useContext, useState, type ReactNode } from 'react';
import { createPortal } from 'react-dom';

const AreaContext = createContext<HTMLElement | null>(null);

/** The top-of-page place for notices; `children` portal their <TopNotice>s into it. */
export function NoticeArea({ children }: { children: ReactNode }) {
  const [area, setArea] = useState<HTMLElement | null>(null);
  return (
    <AreaContext.Provider value={area}>
      <div className="page-notices" ref={setArea} aria-live="assertive" aria-relevant="additions text" data-testid="page-notices" />
      {children}
    </AreaContext.Provider>
  );
}

interface TopNoticeProps {
  /** What the notice says; a new `text` is a new notice (shown again after a dismissal). */
  text: string;
  /** Rendered instead of the plain text (markup for the same words). */
  children?: ReactNode;
  /** `error`: something failed; `notice`: something was refused or left out. */
  kind?: 'error' | 'notice';
  testId?: string;
  /** Told when the person dismisses it (the owner may then forget the text). */
  onDismiss?: () => void;
}

export function TopNotice({ text, children, kind = 'error', testId, onDismiss }: TopNoticeProps) {
  const area = useContext(AreaContext);
  const [dismissed, setDismissed] = useState<string | null>(null);
  if (dismissed === text) return null;
  // The message element holds the words only (tests read it whole); the button is beside it.
  const notice = (
    <div className={`page-notice ${kind}`}>
      <div className="page-notice-text" data-testid={testId}>{children ?? text}</div>
      <button type="button" className="link page-notice-dismiss" aria-label="Dismiss this message"
        onClick={() => { setDismissed(text); onDismiss?.(); }}>
        Dismiss
      </button>
    </div>
  );
  return area ? createPortal(notice, area) : notice;
}
