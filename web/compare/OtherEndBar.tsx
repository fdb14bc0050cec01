// "+ other end…" (issue 44 item 1): on the open connection, a capture of the same transfer
// taken at its other end, chosen or dropped here, opens the compare view of the two
// captures with the merged view above it (TwinArea) showing this connection's pair
// (CompareArea: twinPair.ts `firstPair`). The second capture is opened as the compare
// bar opens one (useSecondCapture.ts).
import { memo } from 'react';
import type { ConnectionSummary } from '../model/types';
import { FilePicker } from '../components/DropZone';
import { directionLabel } from '../charts/common';

export const OtherEndBar = memo(function OtherEndBar({ selected, onOtherEnd }: { selected: ConnectionSummary; onOtherEnd: (file: File) => void }) {
  return (
    // A capture dropped here is this connection's other end (dropped elsewhere, it replaces the open one).
    <div className="compare-bar compare-drop" data-testid="other-end" onDragOver={(e) => e.preventDefault()}
      onDrop={(e) => {
        const file = e.dataTransfer.files?.[0];
        if (!file) return;
        e.preventDefault();
        e.stopPropagation();
        onOtherEnd(file);
      }}>
      <span>Captured at one end? Add the capture of #{selected.id} ({directionLabel(selected, selected.dataDirection as 0 | 1)}) taken at its other end, or drop it here, to merge the two vantage points:</span>
      <FilePicker label="+ other end…" onFile={onOtherEnd} />
    </div>
  );
});
