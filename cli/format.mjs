// The CLI's human-readable summary of a schema-1 report. Every line goes through the
// one sanitizer (cli/outsideText.mjs): a capture's process name, a file name or a
// warning quoting a capture field never writes a control character to the terminal
// (issue 45: an ESC/OSC name retitled the window, a newline forged a `limit:` line).
import { escapeUnsafe, outsideText } from './outsideText.mjs';
import { countOf, formatBitrate, formatBytes, formatDuration } from '../web/model/format.mjs';
import { STALL_CAUSE_LABEL, VANTAGE_LABEL } from './vocabulary.generated.mjs';

// Sizes, rates, durations and counts are written as the page writes them: one formatter
// (web/model/format.mjs; issue 40 item 2: the CLI wrote SI "kB" with two decimals where
// the page wrote IEC "KiB").
export const bytes = formatBytes;
export const rate = formatBitrate;
/** "1 packet", "12,345 packets": a count with its noun. */
export const count = countOf;
export const seconds = formatDuration;

/** Longest process name printed (PKTAP holds 19 bytes; a pcapng option any length). */
const PROCESS_NAME_CHARS = 60;

export function formatHuman(name, report) {
  const { capture, error, warnings, connections } = report;
  const lines = [];
  lines.push(`${name}: ${capture.format ?? 'unknown format'}${capture.linkTypes.length ? `, ${linkTypes(capture.linkTypes)}` : ''}, ` +
    `${count(capture.packets, 'packet')}, ${bytes(capture.bytes)}, ${seconds(capture.duration)}`);
  if (error) lines.push(`DAMAGED: ${error.message}`);
  for (const w of warnings) lines.push(`note: ${w.message}`);
  lines.push(count(connections.length, 'TCP connection'));
  const shown = [...connections].sort((a, b) => payload(b) - payload(a)).slice(0, 20);
  for (const c of shown) {
    const d = c.directions[c.dataDirection];
    lines.push('');
    // The process the capture names (Apple PKTAP / pcapng process blocks), as the page shows it.
    const process = c.process ? `  [${outsideText(c.process.name, PROCESS_NAME_CHARS) || 'unnamed'} (pid ${outsideText(c.process.pid, 12)})]` : '';
    lines.push(`#${c.id}  ${d.from} -> ${d.to}${process}${c.handshakeSeen ? '' : '  (no handshake: window scale unknown)'}`);
    lines.push(`    ${count(c.packets, 'packet')}, ${bytes(d.payloadBytes)} of data in ${seconds(c.end - c.start)}: ` +
      `mean ${rate(d.throughput.meanBps)} over the connection, ${whileActive(d)}, ` +
      `peak ${rate(d.throughput.peakBps)} per ${+(d.throughput.binSeconds * 1000).toPrecision(3)} ms`);
    // A subflow of an MPTCP connection: the level above it in the report's words
    // (wasm analysis/track/mptcp/in_words.rs `text`: data-level bytes and rate, redundancy, failed joins).
    const multipath = c.mptcp == null ? null : (report.mptcp ?? []).find((m) => m.id === c.mptcp);
    if (multipath) lines.push(`    mptcp #${multipath.id}: ${multipath.text}`);
    // Where the capture was taken, in the panel's words (the one vocabulary).
    const where = VANTAGE_LABEL[c.vantage] ?? VANTAGE_LABEL.unknown;
    lines.push(`    ${where}; path RTT ${c.pathRttMs == null ? 'unknown' : `${c.pathRttMs.toFixed(2)} ms`}` +
      (c.pathRttMethod ? ` (${c.pathRttMethod})` : ''));
    if (c.handshake) lines.push(`    handshake: ${handshakeText(c.handshake)}`);
    const r = d.rtt;
    const rtt = r.minMs === null ? 'no RTT samples' :
      `RTT min ${r.minMs.toFixed(2)} ms, median ${r.medianMs.toFixed(2)} ms, p95 ${r.p95Ms?.toFixed(2) ?? '-'} ms, max ${r.maxMs?.toFixed(2) ?? '-'} ms`;
    const peer = c.directions[1 - c.dataDirection];
    const win = peer.receiveWindow ? `receiver window ${bytes(peer.receiveWindow.min)}-${bytes(peer.receiveWindow.max)}` : 'no receiver window seen';
    lines.push(`    ${rtt}; ${win}; ${inFlight(c, d)}`);
    lines.push(`    retransmissions ${d.retransmissions}${retransmissionKinds(d)}${retransmittedSegments(d)}, ` +
      `dup ACKs ${peer.duplicateAcks}, zero windows ${peer.zeroWindows}, lost segments ${d.lostSegments}${unseenDatagrams(d)}`);
    const chains = (d.rtoChains ?? []).filter((ch) => ch.timeouts > 1);
    if (chains.length) {
      const listed = chains.slice(0, 3).map((ch) => `${ch.timeouts} at ${ch.start.toFixed(3)} s (${ch.intervalsMs.map((ms) => ms.toFixed(0)).join(', ')} ms)`);
      lines.push(`    timeout backoff: ${listed.join('; ')}${chains.length > 3 ? '; ...' : ''}`);
    }
    if (d.ecn) {
      // docs/ANALYSIS.md "ECN": under Accurate ECN the ECE/CWR flags are a counter (null).
      const flag = (n) => (n === null ? 'AccECN counter' : String(n));
      const data = d.ecn.ect0 + d.ecn.ect1 + d.ecn.ce;
      lines.push(`    ECN: ${d.ecn.ce} of ${data} data segments CE-marked, ECE on ${peer.ecn ? flag(peer.ecn.ece) : "0"} ACKs, CWR ${flag(d.ecn.cwr)}`);
    }
    if (d.stalls.length) {
      const listed = d.stalls.slice(0, 5).map((s) => `${seconds(s.duration)} at ${s.start.toFixed(3)} s (${STALL_CAUSE_LABEL[s.cause] ?? s.cause})`);
      lines.push(`    stalls ${d.stalls.length}: ${listed.join(', ')}${d.stalls.length > 5 ? ', ...' : ''}`);
    }
    // How the connection ended (wasm analysis/track/ending.rs): the table's words and the sentence.
    if (c.ending) lines.push(`    ended: ${c.ending.words} - ${c.ending.text}`);
    lines.push(`    limit: ${c.diagnosis.limit}${c.diagnosis.text ? ` - ${c.diagnosis.text}` : ''}`);
  }
  if (connections.length > shown.length) lines.push('', `(${connections.length - shown.length} smaller connections not listed; use --json)`);
  return `${lines.map(escapeUnsafe).join('\n')}\n`;
}

/** "12 Mbit/s while active"; 0 with data sent is no rate (docs/ANALYSIS.md
 *  `throughput.activeMeanBps`: no burst held two data segments, or all at one instant). */
function whileActive(d) {
  const active = d.throughput.activeMeanBps ?? d.throughput.meanBps;
  return active === 0 && d.payloadBytes > 0 ? 'no rate while active (no burst of two segments)' : `${rate(active)} while active`;
}

/** "max in flight 42 KiB": the sender's SND.NXT − SND.UNA (docs/ANALYSIS.md
 *  `direction.maxBytesInFlight`). At a receiver-side capture the same subtraction is
 *  data arrived − ACK left, what the receiver had not yet acknowledged: said so, as a
 *  lower bound of the sender's (issue 39 class W: "3.8 KiB" beside 329 KB in 177 ms on
 *  a 20 ms path). */
function inFlight(c, d) {
  if (d.maxBytesInFlight === null) return 'max in flight -';
  if (c.vantage !== 'receiver') return `max in flight ${bytes(d.maxBytesInFlight)}`;
  return `max not yet acknowledged at the capture point ${bytes(d.maxBytesInFlight)} (the sender had at least this in flight)`;
}

function linkTypes(names, max = 4) {
  // A hostile pcapng can declare 65,535 interfaces with as many link types.
  return names.length <= max ? names.join(' + ') : `${names.slice(0, max).join(' + ')} and ${names.length - max} more link types`;
}

/** The data direction's payload (the direction that carried more). */
function payload(c) {
  return c.directions[c.dataDirection].payloadBytes;
}

/** " (2 timeouts, 1 tail loss probe, 21 fast / SACK recovery, 11 slow start; 3 spurious)":
 *  the kinds of docs/ANALYSIS.md "Retransmission kinds", those that occurred. */
export function retransmissionKinds(d) {
  if (!d.retransmissions) return '';
  const n = (v, one, many) => `${v} ${v === 1 ? one : many}`;
  const kinds = [
    d.rtoEvents ? n(d.rtoEvents, 'timeout', 'timeouts') : null,
    d.tailLossProbes ? n(d.tailLossProbes, 'tail loss probe', 'tail loss probes') : null,
    d.fastRetransmissions ? `${d.fastRetransmissions} fast / SACK recovery` : null,
    d.slowStartRetransmissions ? `${d.slowStartRetransmissions} slow start after a timeout` : null,
    d.backToBackDuplicates ? `${d.backToBackDuplicates} sent twice back to back` : null,
    d.pmtuRetransmissions ? `${d.pmtuRetransmissions} re-sent smaller after an ICMP path MTU message` : null,
  ].filter(Boolean);
  const spurious = d.spuriousRetransmissions ? `; ${d.spuriousRetransmissions} spurious` : '';
  return kinds.length || spurious ? ` (${kinds.join(', ')}${spurious})` : '';
}

/** ", 1 datagram sent, not captured": where the sender numbers its IPv4 datagrams one per
 *  segment and skipped some (docs/ANALYSIS.md `direction.unseenDatagrams`), as the page's
 *  "Sent, not captured" row. */
function unseenDatagrams(d) {
  if (!(d.unseenDatagrams > 0)) return '';
  return `, ${d.unseenDatagrams} datagram${d.unseenDatagrams === 1 ? '' : 's'} sent, not captured (IPv4 numbering)`;
}

/** "; 1254 segments as the sender's kernel counts them (1242 fast, 11 slow start)":
 *  only where the capture's frames hold several segments each (TSO/GRO; docs/ANALYSIS.md
 *  `direction.retransmittedSegments`), as the page's "Retransmitted segments" row. */
function retransmittedSegments(d) {
  if (!(d.retransmittedSegments > d.retransmissions)) return '';
  return `; ${d.retransmittedSegments} segments as the sender's kernel counts them ` +
    `(${d.fastRetransmittedSegments} fast, ${d.slowStartRetransmittedSegments} slow start)`;
}

/** "SYN mss 1460, wscale 10, SACK, timestamps; SYN/ACK mss 1460, wscale 7, SACK,
 *  timestamps; window scaling negotiated" (docs/ANALYSIS.md "connection.handshake"). */
function handshakeText(h) {
  const offer = (name, o) => {
    if (!o) return `${name} not captured`;
    const parts = [o.mss == null ? null : `mss ${o.mss}`, o.windowScale == null ? null : `wscale ${o.windowScale}`,
      o.sackPermitted ? 'SACK' : null, o.timestamps ? 'timestamps' : null, o.ecn ? 'ECN' : null, o.tfo ? 'TFO' : null].filter(Boolean);
    return `${name} ${parts.length ? parts.join(', ') : 'no options'}`;
  };
  return `${offer('SYN', h.syn)}; ${offer('SYN/ACK', h.synAck)}; window scaling ${h.windowScaling.replace('-', ' ')}`;
}
