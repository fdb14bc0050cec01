// Issue 46 item 4: a connection that idles a minute before its data opens zoomed to the
// data (the engine's `connection.dataView`, wasm analysis/run/opening_view.rs), and `0`
// shows the whole connection. Every wait is on data-state or a locator assertion.
//
// FIXTURE (written by the Rust synth generator; the test fails when it is stale):
// e2e/fixtures/idle-then-data.pcap (wasm/tests/view_issue46.rs: handshake at 0, nothing
// for 60 s, a request at 60 s and a 40-segment response to 60.400 s, FINs at 60.5 s).
import { expect, test } from './warm';
import { fileURLToPath } from 'node:url';
import { expectState } from './state';

const fixtures = fileURLToPath(new URL('./fixtures/', import.meta.url));

test('a capture with a long idle before its data opens on the data; 0 shows the whole connection', async ({ page }) => {
  await page.goto('/');
  await page.getByTestId('file-input').setInputFiles(`${fixtures}idle-then-data.pcap`);
  await expectState(page, 'ready');
  const range = page.locator('.tcps-range');
  // Data from 60.000 to 60.400 s, 2 % (8 ms) each side: 416 ms from 59.992 s, where the
  // whole connection (0 to 60.502 s) would be a minute wide.
  await expect(range).toHaveText(/^416(\.0)? ms from 59\.992000 s$/);
  // Opened on the data, the URL carries no range (it is the default view).
  expect(page.url()).not.toMatch(/[#&]t=/);
  await page.locator('section.tcps-charts').focus();
  await page.keyboard.press('0');
  // The whole connection with the page's 1 % padding: from −0.605020 s to 61.10702 s.
  await expect(range).toHaveText(/from -0\.605020 s$/);
  const t1 = Number(await range.getAttribute('data-t1'));
  expect(t1).toBeCloseTo(61.10702, 5);
  await expect(page.getByRole('button', { name: 'Whole connection' })).toBeDisabled();
});

test('ECN: every CE mark, ECE and CWR is drawn on the time-sequence chart and counted in the events strip', async ({ page }) => {
  await page.goto('/');
  await page.getByTestId('file-input').setInputFiles(`${fixtures}idle-then-data.pcap`);
  await expectState(page, 'ready');
  // 3 CE marks (= tshark's ip.dsfield.ecn == 3), 3 ECE echoes, 3 CWR answers
  // (wasm/tests/view_issue46.rs); opened on the data, each in its own pixel column.
  const strip = page.locator('svg[data-chart="events"]');
  for (const series of ['ceMarks', 'ece', 'cwr']) {
    await expect(strip.locator(`path[data-series="${series}"]`)).toHaveAttribute('data-events', '3');
    await expect(page.locator(`figure[data-chart="events"] li[data-series="${series}"]`)).toHaveAttribute('data-total', '3');
  }
  const seq = page.locator('svg[data-chart="sequence"]');
  for (const kind of ['ce', 'ece', 'cwr']) await expect(seq.locator(`path.tcps-ecn-${kind}`)).toHaveAttribute('data-marks', '3');
});
