// @vitest-environment jsdom
import { afterEach, describe, expect, it } from 'vitest';
import { connectionData, makeFixture } from '../charts/fixtures';
import { FLAG } from '../model/types';
import { CSV_COLUMNS, connectionCsv } from './csv';
import { svgToStandalone, svgToString } from './svg';
import { engineFor } from '../charts/testEngine';
import { drawStalls } from '../charts/StallsChart';
import { fullView, newSvg } from '../charts/testUtil';

describe('connectionCsv', () => {
  it('has the header, one row per packet, and empty cells for missing values', () => {
    const data = makeFixture();
    const lines = connectionCsv(data).trimEnd().split('\n');
    expect(lines[0]).toBe('t,dir,frame,seq,len,wireLen,ack,win,inFlight,flags');
    expect(lines[0].split(',')).toEqual([...CSV_COLUMNS]);
    expect(lines.length - 1).toBe(data.packets.t.length);
  });

  it('writes a row exactly', () => {
    const data = connectionData({
      rows: [
        { t: 0, dir: 0, seq: 0, flags: FLAG.SYN, win: 64240 },
        { t: 0.1 + 0.2, dir: 1, seq: 1, len: 1448, wireLen: 1514, ack: 4294967296, win: 3145728, inFlight: 2896, flags: FLAG.ACK | FLAG.PSH },
      ],
    });
    const lines = connectionCsv(data).split('\n');
    expect(lines[1]).toBe('0.000000,0,1,0,0,66,,64240,,2');
    expect(lines[2]).toBe('0.300000,1,2,1,1448,1514,4294967296,3145728,2896,24');
  });
});

describe('svgToStandalone', () => {
  afterEach(() => {
    document.head.innerHTML = '';
    document.body.innerHTML = '';
  });

  function chart() {
    document.head.innerHTML = `<style>
      .tcps-charts { --tcps-blue: #0072b2; background-color: rgb(21, 24, 28); }
      .line { fill: none; stroke: var(--tcps-blue); stroke-dasharray: 4 2; }
      .label { fill: #5b6470; font-size: 11px; font-family: serif; }
      .hidden { display: none; }
    </style>`;
    document.body.innerHTML = `<section class="tcps-charts"><svg data-chart="throughput" width="640" height="200">
      <title>Throughput</title><desc>rate per bin</desc>
      <g class="tcps-content"><path class="line" d="M0,0L10,10"/><text class="label">1 Mbit/s</text><g class="hidden"><circle r="2"/></g></g>
      <g class="tcps-interact"><rect class="hover-target" width="10" height="10"/></g>
      <g class="tcps-overlay"><text>tooltip</text></g>
    </svg></section>`;
    return document.querySelector('svg')!;
  }

  it('adds xmlns, size and a background rect with the page colour', () => {
    const out = svgToStandalone(chart());
    expect(out.getAttribute('xmlns')).toBe('http://www.w3.org/2000/svg');
    expect(out.getAttribute('width')).toBe('640');
    expect(out.getAttribute('viewBox')).toBe('0 0 640 200');
    const background = out.querySelector('rect.tcps-export-background')!;
    expect(background.getAttribute('fill')).toBe('rgb(21, 24, 28)');
    // Drawn first, after the accessible title/description.
    expect(background.previousElementSibling!.localName).toBe('desc');
    expect(svgToString(chart())).toMatch(/^<svg [^>]*xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
  });

  it('inlines computed fill, stroke (CSS variables resolved), dasharray and fonts, as a browser reports them', () => {
    const out = svgToStandalone(chart());
    const path = out.querySelector('path.line')!;
    expect(path.getAttribute('fill')).toBe('none');
    expect(path.getAttribute('stroke')).toBe('rgb(0, 114, 178)');
    expect(path.getAttribute('stroke-dasharray')).toBe('4px, 2px');
    const label = out.querySelector('text.label')!;
    expect(label.getAttribute('fill')).toBe('rgb(91, 100, 112)');
    expect(label.getAttribute('font-size')).toBe('11px');
    expect(label.getAttribute('font-family')).toBe('serif');
  });

  it('gives the root every inherited value (jsdom: from the ancestors or the initial value) and keeps <title>', () => {
    document.head.innerHTML = '<style>.tcps-charts { font: 12px/1.4 serif; }</style>';
    document.body.innerHTML = '<section class="tcps-charts"><svg width="640" height="200"><title>T</title><g font-size="10"><text>x</text></g></svg></section>';
    const out = svgToStandalone(document.querySelector('svg')!);
    expect(out.firstElementChild!.localName).toBe('title');
    expect(out.getAttribute('font-family')).toBe('serif');
    expect(out.getAttribute('font-size')).toBe('12px');
    expect(out.getAttribute('fill')).toBe('rgb(0, 0, 0)');
    expect(out.getAttribute('stroke-width')).toBe('1px');
    // A presentation attribute is a computed value too: in px, as a browser reports it.
    expect(out.querySelector('g')!.getAttribute('font-size')).toBe('10px');
  });

  it('drops hidden elements and the live interaction layers', () => {
    const source = chart();
    const out = svgToStandalone(source);
    expect(out.querySelector('circle')).toBeNull();
    expect(out.querySelector('.tcps-interact')).toBeNull();
    expect(out.querySelector('.tcps-overlay')).toBeNull();
    // The page's own chart is untouched.
    expect(source.querySelector('.tcps-interact')).not.toBeNull();
    expect(source.querySelector('path')!.hasAttribute('stroke')).toBe(false);
  });
});

describe('exported ids do not depend on what the page mounted before', () => {
  it('the same chart drawn as the 1st and as the 5th svg of the page exports the same text', () => {
    const { report } = engineFor('../../e2e/fixtures/pktap-processes.pcap');
    const summary = report.connections.find((c) => c.process)!;
    const draw = () => {
      const svg = newSvg();
      drawStalls(svg, { stalls: null, summary, direction: summary.dataDirection }, fullView(summary));
      return svg;
    };
    const first = draw();
    const early = svgToString(first);
    // Three more charts mounted and gone (the loading chart, a re-mount): the page's count moves on.
    for (let i = 0; i < 3; i += 1) draw().remove();
    const late = draw();
    expect(late.dataset.uid).not.toBe(first.dataset.uid);
    // Every reference follows: aria-labelledby and the clip path name the renumbered ids.
    expect(svgToString(late)).toBe(early);
    expect(early).toContain('aria-labelledby="tcps-stalls-1-title tcps-stalls-1-desc"');
    expect(early).not.toContain(`tcps-stalls-${late.dataset.uid}-`);
    first.remove();
    late.remove();
  });
});

describe('an exported chart names the process behind the connection (issue 17 item 1)', () => {
  it('the standalone SVG of a PKTAP connection carries "— name (pid N)" in its title', () => {
    const { report } = engineFor('../../e2e/fixtures/pktap-processes.pcap');
    const summary = report.connections.find((c) => c.process)!;
    const svg = newSvg();
    drawStalls(svg, { stalls: null, summary, direction: summary.dataDirection }, fullView(summary));
    const text = svgToString(svg);
    const label = `${summary.process!.name} (pid ${summary.process!.pid})`;
    // Numbered 1 in the file, whatever the page's count of mounted charts (svg.ts renumberIds).
    expect(text).toContain(`<title id="tcps-stalls-1-title">Stalls — ${label}</title>`);
    expect(text).toMatch(new RegExp(`class="tcps-title"[^>]*>Stalls — ${label.replace(/[()]/g, '\\$&')}<`));
    svg.remove();
  });
});
