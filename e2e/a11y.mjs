// The accessibility check of the browser tests: axe-core (from npm) run inside a page.
// A violation counts when axe rates it serious or critical, and always for
// `color-contrast`.

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * Runs axe on the page as it is now. Returns the violations that count, one line each,
 * and how many elements the contrast rule checked (so that a check which saw nothing
 * does not pass unnoticed).
 */
export async function axeReport(page) {
  // Evaluated through the DevTools protocol: the page's Content-Security-Policy (rightly)
  // refuses an injected inline <script>.
  if (!(await page.evaluate(() => typeof window.axe === 'object'))) await page.evaluate(AXE_SOURCE);
  const results = await page.evaluate(() => window.axe.run(document));
  const contrastChecked = [...results.passes, ...results.violations]
    .filter((r) => r.id === 'color-contrast')
    .reduce((n, r) => n + r.nodes.length, 0);
  const violations = results.violations
    .filter((v) => v.id === 'color-contrast' || v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.help}; ${v.nodes.length} element(s), e.g. ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | ')}`);
  return { violations, contrastChecked };
}
