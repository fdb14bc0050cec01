// The landing page: drop zone, file picker and the example list.
import { useEffect, useState, memo } from 'react';

export interface Example { file: string; title: string; description: string; story?: string }

interface Props {
  onFile: (file: File) => void;
  onExample: (example: Example) => void;
}

// Memoised: a zoom or pan gesture re-renders the app every frame and this does not change with the range.
export const FilePicker = memo(function FilePicker({ onFile, label = 'Choose a capture…' }: { onFile: (f: File) => void; label?: string }) {
  return (
    <label className="button file-picker">
      {label}
      <input
        type="file"
        data-testid="file-input"
        accept=".pcap,.pcapng,.cap,.dmp,.gz,.tcpscope.json,application/vnd.tcpdump.pcap"
        onChange={(e) => {
          const file = e.currentTarget.files?.[0];
          if (file) onFile(file);
          e.currentTarget.value = ''; // choosing the same file again must reload it
        }}
      />
    </label>
  );
});

/** The bundled examples (public/examples/index.json): null while the list loads, [] when there are none. */
export function useExamples(): Example[] | null {
  const [examples, setExamples] = useState<Example[] | null>(null);
  useEffect(() => {
    fetch(new URL('examples/index.json', document.baseURI))
      .then((r) => (r.ok ? r.json() : []))
      .then((list: Example[]) => setExamples(Array.isArray(list) ? list : []))
      .catch(() => setExamples([]));
  }, []);
  return examples;
}

export function Landing({ onFile, onExample }: Props) {
  const examples = useExamples();
  return (
    <section className="landing">
      <div className="drop-zone" data-testid="drop">
        <p className="drop-title">Drop a .pcap / .pcapng here — it never leaves your computer</p>
        <p className="drop-sub">Decoded in your browser by a Rust/WebAssembly engine. gzip-compressed captures are fine.</p>
        <FilePicker onFile={onFile} />
      </div>
      <div className="examples">
        <h2>Open an example</h2>
        {examples === null ? <p className="muted">Loading the list…</p> : null}
        {examples?.length === 0 ? <p className="muted">No examples are bundled with this build.</p> : null}
        <ul data-testid="examples">
          {examples?.map((example) => (
            <li key={example.file}>
              <button className="link" onClick={() => onExample(example)} data-example={example.file}>
                {example.title}
              </button>
              <span className="muted"> — {example.description}</span>
            </li>
          ))}
        </ul>
      </div>
    </section>
  );
}
