// Save a Blob as a file: a temporary object URL on an <a download> click. The URL is
// revoked a little later because some browsers start reading it after click() returns.

export function downloadBlob(blob: Blob, filename: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  a.rel = 'noopener';
  a.style.display = 'none';
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 30_000);
}

/** A file-name-safe stem from a capture name ("my capture.pcapng" → "my_capture"). */
export function fileStem(name: string): string {
  return name.replace(/\.(pcapng|pcap|cap|gz)$/gi, '').replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 80) || 'tcpscope';
}
