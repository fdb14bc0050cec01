// One pcapng whose interfaces are two vantage points (issue 44 item 1: mergecap -I none
// of a client's and a server's capture, or a host capturing two interfaces of one path):
// the open capture, when it is a pcapng, is asked of the engine (vantageInterfaces.ts,
// wasm/src/twin/interfaces.rs); when two of its interfaces carry the same TCP segments, a
// notice offers "Merge the two vantage points": the file is split by interface into two
// captures, opened as two captures dropped together are (the first as the app's, the
// second as the compare view's side B), so the merged view and the compare charts follow.
// The engine's sentence says what was found; nothing is counted here.
import { useEffect, useState } from 'react';
import type { VantageInterfaces } from '../worker/generated/view';
import { TopNotice } from '../components/TopNotice';
import { probeInterfaces, splitInterfaces } from './vantageInterfaces';
import { outsideText } from '../security/outsideText';

type Probe = { phase: 'probing' } | { phase: 'done'; found: VantageInterfaces } | { phase: 'failed'; message: string };

/** Answers kept per capture: leaving the compare view and coming back asks nothing again. */
const answered = new WeakMap<() => Promise<Blob>, VantageInterfaces>();

export interface InterfacesOfferProps {
  name: string;
  capture: () => Promise<Blob>;
  /** Opens the two captures as a compare view (the App's two-files drop). */
  onOpenPair: (first: File, second: File) => void;
}

export function InterfacesOffer({ name, capture, onOpenPair }: InterfacesOfferProps) {
  const [probe, setProbe] = useState<Probe>(() => {
    const known = answered.get(capture);
    return known ? { phase: 'done', found: known } : { phase: 'probing' };
  });
  const [splitting, setSplitting] = useState<string | null>(null);
  useEffect(() => {
    const known = answered.get(capture);
    if (known) { setProbe({ phase: 'done', found: known }); return; }
    let live = true;
    let cancel = () => {};
    setProbe({ phase: 'probing' });
    capture().then((blob) => {
      if (!live) return;
      const run = probeInterfaces(blob);
      cancel = run.cancel;
      return run.found.then((found) => {
        answered.set(capture, found);
        if (live) setProbe({ phase: 'done', found });
      });
    }).catch((error) => live && setProbe({ phase: 'failed', message: error instanceof Error ? error.message : String(error) }));
    return () => { live = false; cancel(); };
  }, [capture]);

  const found = probe.phase === 'done' ? probe.found : null;
  const offered = found?.sides != null;
  const merge = async () => {
    if (!found) return;
    setSplitting('Splitting the capture by interface…');
    try {
      const { files } = await splitInterfaces(await capture(), name, found);
      onOpenPair(files[0], files[1]);
    } catch (error) {
      setSplitting(`The capture could not be split by interface: ${error instanceof Error ? error.message : String(error)}`);
    }
  };
  return (
    <>
      {/* Where the question stands, for tests and tools: probing, offered, not-offered, failed. */}
      <span hidden data-testid="vantage-probe" data-state={probe.phase === 'probing' ? 'probing' : probe.phase === 'failed' ? 'failed' : offered ? 'offered' : 'not-offered'} />
      {offered ? (
        <TopNotice kind="notice" testId="vantage-offer" text={found.text}>
          {/* The sentence names the interfaces as the file does (if_name): outside text. */}
          <p>This capture holds two vantage points: {outsideText(found.text, 400)}</p>
          <p>
            <button type="button" className="button" data-testid="vantage-merge" disabled={splitting !== null && splitting.endsWith('…')} onClick={merge}>
              Merge the two vantage points
            </button>{' '}
            <span className="muted">(opens interface {found.sides![0]}'s packets and interface {found.sides![1]}'s as two captures, compared and merged)</span>
          </p>
          {splitting ? <p role="status">{splitting}</p> : null}
        </TopNotice>
      ) : null}
    </>
  );
}
