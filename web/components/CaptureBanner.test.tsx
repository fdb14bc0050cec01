// @vitest-environment jsdom
// Duplicate frames and a coarse capture clock are said once, as banners (issue 13 items 2, 3).
import { describe, expect, it } from 'vitest';
import { CaptureBanner, noConnectionsText, warningsSummary } from './CaptureBanner';
import type { Report } from '../model/types';
import type { WarningTotals } from '../worker/generated/view';
type Warning = Report['warnings'][number];
import { render } from './testUtil';

/** The engine's sums of a report's warnings (report.rs `WarningTotals`, tested there). */
const totals = (notAnalysed: number, unreadable = 0, repaired = 0): WarningTotals => ({ notAnalysed, unreadable, repaired });
/** NOT_TCP's 3 packets, the only warning of the list in most tests below. */
const THREE_NOT_TCP = totals(3);

const report = (capture: Partial<Report['capture']> & Record<string, unknown>, warnings: Report['warnings'] = [], warningTotals = totals(0)): Report => ({
  schemaVersion: 1,
  capture: { format: 'pcap', linkTypes: ['LINUX_SLL2'], packets: 1200, bytes: 1_500_000, duration: 3, ...capture } as Report['capture'],
  error: null,
  warnings,
  warningTotals,
  connections: [],
});

const DUP_WARNING = { kind: 'duplicate-frames', count: 81, message: '81 duplicate frames from the capture set-up were ignored' } satisfies Warning;
const CLOCK_WARNING = { kind: 'coarse-clock', count: 1, message: 'Timestamps tick in 10 ms steps: RTTs and stalls shorter than that cannot be measured' } satisfies Warning;
const NOT_TCP = { kind: 'not-tcp', count: 3, message: '3 IP packets that are not TCP' } satisfies Warning;

describe('CaptureBanner', () => {
  it('a capture of data segments only says so as a banner, not as packets not analysed', () => {
    // analysis/mod.rs `payload_only`: 637 segments, none without payload (a filtered
    // capture): every segment was analysed, so it is no "N packets were not analysed".
    const PAYLOAD_ONLY = { kind: 'payload-only', count: 637, message: 'Every one of the 637 TCP segments carries data: no pure ACK, handshake or FIN is in this capture' } satisfies Warning;
    const el = render(<CaptureBanner name="bitcoin.pcap" report={report({ timestampResolutionMs: 0.001 }, [PAYLOAD_ONLY])} />);
    expect(el.querySelector('[data-testid="payload-only-banner"]')!.textContent).toBe(`${PAYLOAD_ONLY.message}.`);
    expect(el.querySelector('[data-testid="warnings"]')).toBeNull();
  });

  it('packets with an impossible timestamp were analysed: they are not counted as packets not analysed', () => {
    // tcpdump's timestamp_invalid_nano.pcap: 2 of its 3 packets carry a nanosecond part of
    // a second or more, carried into the seconds (docs/ANALYSIS.md "Impossible
    // timestamps"); the connection holds all 3. It read "2 packets were not analysed".
    const IMPOSSIBLE = { kind: 'impossible-timestamp', count: 2, message: '2 packets whose timestamp field cannot be a time' } satisfies Warning;
    expect(warningsSummary(totals(0, 0, 2))).toBe('2 packets analysed all the same (see below)');
    expect(warningsSummary(totals(3, 0, 2))).toBe('3 packets were not analysed; 2 packets analysed all the same (see below)');
    expect(warningsSummary(totals(0, 0, 1))).toBe('1 packet analysed all the same (see below)');
    // A link made before the engine summed the warnings.
    expect(warningsSummary(undefined)).toBe('Warnings');
    const el = render(<CaptureBanner name="timestamp_invalid_nano.pcap" report={report({ timestampResolutionMs: 0.000001 }, [IMPOSSIBLE], totals(0, 0, 2))} />);
    expect(el.querySelector('[data-testid="warnings"] summary')!.textContent).toBe('2 packets analysed all the same (see below)');
  });

  it('duplicate frames and 802.11 retries, once, not also in the warnings list', () => {
    const el = render(<CaptureBanner name="any.pcap" report={report({ duplicateFrames: 81, wifiRetries: 2, timestampResolutionMs: 0.001 }, [DUP_WARNING, NOT_TCP], THREE_NOT_TCP)} />);
    expect(el.querySelector('[data-testid="duplicate-frames-banner"]')!.textContent).toBe(
      '81 duplicate frames from the capture set-up were ignored (2 802.11 retries).',
    );
    expect(el.querySelector('[data-testid="coarse-clock-banner"]')).toBeNull(); // a µs clock is fine
    const warnings = el.querySelector('[data-testid="warnings"]')!;
    expect([...warnings.querySelectorAll('li')].map((li) => li.textContent)).toEqual(['3 IP packets that are not TCP']);
    expect(warnings.querySelector('summary')!.textContent).toBe('3 packets were not analysed');
    expect(el.textContent!.split('duplicate frames').length - 1).toBe(1);
  });

  it('no 802.11 part without retries; one frame in the singular', () => {
    const el = render(<CaptureBanner name="a.pcap" report={report({ duplicateFrames: 1, wifiRetries: 0, timestampResolutionMs: null })} />);
    expect(el.querySelector('[data-testid="duplicate-frames-banner"]')!.textContent).toBe('1 duplicate frame from the capture set-up was ignored.');
  });

  it('a 10 ms capture clock', () => {
    const el = render(<CaptureBanner name="old.pcap" report={report({ duplicateFrames: 0, wifiRetries: 0, timestampResolutionMs: 10 }, [CLOCK_WARNING])} />);
    expect(el.querySelector('[data-testid="coarse-clock-banner"]')!.textContent).toBe(
      'The capture clock ticks every 10 ms: RTTs and stalls shorter than that cannot be measured.',
    );
    expect(el.querySelector('[data-testid="duplicate-frames-banner"]')).toBeNull();
    expect(el.querySelector('[data-testid="warnings"]')).toBeNull(); // the only warning is the banner's
    expect(el.textContent).not.toContain('Timestamps tick');
  });

  it('a 1 ms clock is not coarse; a report without the fields shows the warnings as banners', () => {
    const fine = render(<CaptureBanner name="a.pcap" report={report({ duplicateFrames: 0, wifiRetries: 0, timestampResolutionMs: 1 })} />);
    expect(fine.querySelector('[data-testid="coarse-clock-banner"]')).toBeNull();
    const legacy = render(<CaptureBanner name="a.pcap" report={report({}, [DUP_WARNING, CLOCK_WARNING])} />);
    expect(legacy.querySelector('[data-testid="duplicate-frames-banner"]')!.textContent).toBe(DUP_WARNING.message);
    expect(legacy.querySelector('[data-testid="coarse-clock-banner"]')!.textContent).toBe(CLOCK_WARNING.message);
    expect(legacy.querySelector('[data-testid="warnings"]')).toBeNull();
  });

  it('a forward jump of the clock is a banner: its packet was analysed as stamped, not skipped', () => {
    // Two captures joined (docs/ANALYSIS.md "Time order"); the engine's sentence, shortened.
    const JUMP = { kind: 'time-jumped-forward', count: 1, message: '1 packet whose timestamp jumps more than an hour past every earlier one: frame 701, 1,202.8 days past every packet before it' } satisfies Warning;
    const el = render(<CaptureBanner name="joined.pcap" report={report({ duplicateFrames: 0, wifiRetries: 0, timestampResolutionMs: 0.001 }, [JUMP, NOT_TCP], THREE_NOT_TCP)} />);
    expect(el.querySelector('[data-testid="time-jump-banner"]')!.textContent).toBe(`The clock jumps forward in this capture: ${JUMP.message}.`);
    expect(el.querySelector('[data-testid="warnings"] summary')!.textContent).toBe('3 packets were not analysed');
  });

  it('says when the capture itself dropped packets, as a banner, not as packets not analysed', () => {
    // capture-loss.pcap's warning (wasm/tests/capture_loss_captures.rs).
    const LOSS = { kind: 'capture-loss', count: 13, message: 'The capture dropped packets: about 13 segments (18 KiB) that the receiver acknowledged were never captured, in 1 connection. These holes are not counted as network loss or retransmissions.' } satisfies Warning;
    const el = render(<CaptureBanner name="capture-loss.pcap" report={report({ duplicateFrames: 0, wifiRetries: 0, timestampResolutionMs: 0.001 }, [LOSS, NOT_TCP], THREE_NOT_TCP)} />);
    expect(el.querySelector('[data-testid="capture-loss-banner"]')!.textContent).toBe(LOSS.message);
    expect(el.querySelector('[data-testid="warnings"] summary')!.textContent).toBe('3 packets were not analysed');
  });

  it('says when connections were captured in one direction only, as a banner: its count is connections', () => {
    // ntop/nDPI vk.pcapng's warning (wasm/src/analysis/verdict/one_direction.rs).
    const ONE = { kind: 'one-direction', count: 10, message: '10 connections were captured in one direction only (asymmetric routing, a tap or mirror port on one direction, or a capture filter on one address): their receive window, bytes in flight, round trip and losses cannot be judged, and no limit is named.' } satisfies Warning;
    const el = render(<CaptureBanner name="vk.pcapng" report={report({ duplicateFrames: 0, wifiRetries: 0, timestampResolutionMs: 0.001 }, [ONE, NOT_TCP], THREE_NOT_TCP)} />);
    expect(el.querySelector('[data-testid="one-direction-banner"]')!.textContent).toBe(ONE.message);
    expect(el.querySelector('[data-testid="warnings"] summary')!.textContent).toBe('3 packets were not analysed');
  });

  it('no connection: "no TCP" only when nothing could hold TCP; else why, with the reasons open', () => {
    const plain = render(<CaptureBanner name="udp.pcap" report={report({}, [NOT_TCP], THREE_NOT_TCP)} />);
    expect(plain.querySelector('[data-testid="no-connections"]')!.textContent).toBe('This capture has no TCP connections.');
    expect(plain.querySelector('details[data-testid="warnings"]')!.hasAttribute('open')).toBe(true);
    // tcpdump's tests/ipoib.pcap (LINKTYPE_IPOIB): tshark finds 20 TCP frames in 6 streams.
    const IPOIB = { kind: 'unknown-link-type', count: 30, message: '30 packets with a link-layer type tcpscope cannot decode (LINKTYPE 242)' } satisfies Warning;
    const el = render(<CaptureBanner name="ipoib.pcap" report={report({}, [IPOIB], totals(30, 30))} />);
    expect(el.querySelector('[data-testid="no-connections"]')!.textContent).toBe(
      'No TCP connection could be read: 30 packets may hold TCP that tcpscope cannot decode (below).',
    );
    expect(el.textContent).not.toContain('has no TCP connections');
    expect(el.querySelector('details[data-testid="warnings"] li')!.textContent).toBe(IPOIB.message);
    expect(noConnectionsText(totals(1, 1))).toBe('No TCP connection could be read: 1 packet may hold TCP that tcpscope cannot decode (below).');
    // A monitor-mode capture of a WPA network (aircrack-ng's wpa-psk-linksys.cap): its
    // 59 encrypted data frames held the TCP; "no TCP connections" would be wrong.
    // 528 not-ip + 59 encrypted-frame packets.
    expect(noConnectionsText(totals(587, 59))).toBe('No TCP connection could be read: 59 packets may hold TCP that tcpscope cannot decode (below).');
  });
});
