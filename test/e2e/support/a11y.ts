/**
 * Accessibility and layout checks run inside the page under test:
 * - `axeViolations`: axe-core (the `axe-core` package, injected through CDP so a strict CSP does not block it) with
 *   the WCAG 2.0/2.1 A and AA rules; each violation as "rule: target (summary)".
 * - `layoutProblems`: bounding-box checks of every visible control (button, input, select, textarea, link, tab):
 *   controls overlapping each other, controls clipped by the viewport or by an ancestor that hides overflow, a
 *   placeholder wider than its field, touch targets under 44×44 CSS px (WCAG 2.5.5; a radio or checkbox counts its
 *   label), radios of one group of different sizes, and not exactly one h1.
 * - `nativeLookingFields`: text fields and drop-downs that kept the browser's own look.
 * - `overflowingBoxes`: boxes whose text or children stick out of them.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** WCAG 2.1 A and AA (axe tags). */
export const WCAG21_AA_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];

/** axe-core's WCAG 2.1 A/AA violations on the page as it is now (empty when none). */
export async function axeViolations(page: Page): Promise<string[]> {
  const hasAxe = await page.evaluate(() => 'axe' in window);
  if (!hasAxe) await page.evaluate(axeSource);
  return page.evaluate(async (tags) => {
    const axe = (
      window as unknown as {
        axe: {
          run: (ctx: Document, opts: unknown) => Promise<{ violations: { id: string; nodes: { target: string[]; failureSummary?: string }[] }[] }>;
        };
      }
    ).axe;
    const result = await axe.run(document, { runOnly: { type: 'tag', values: tags }, resultTypes: ['violations'] });
    return result.violations.flatMap((v) =>
      v.nodes.map((n) => `${v.id}: ${n.target.join(' ')} (${(n.failureSummary ?? '').replace(/\s+/g, ' ').slice(0, 160)})`),
    );
  }, WCAG21_AA_TAGS);
}

/** Overlapping, clipped or too small controls, cut placeholders and the h1 count, as readable lines (empty when fine). */
export async function layoutProblems(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const problems: string[] = [];
    const MIN = 44;
    // With a modal open, only the dialog is in reach: check it alone.
    const dialog = document.querySelector<HTMLElement>('[role="dialog"][aria-modal="true"]');
    const scope: ParentNode = dialog ?? document;
    const describe = (el: Element) => {
      const label = el.getAttribute('aria-label') ?? el.getAttribute('data-testid') ?? (el.textContent ?? '').trim().slice(0, 30);
      return `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''} "${label || (el as HTMLInputElement).placeholder || ''}"`;
    };
    const isShown = (el: HTMLElement) => {
      if (el.closest('[hidden], [inert]')) return false;
      const style = getComputedStyle(el);
      if (style.visibility === 'hidden' || style.display === 'none') return false;
      const r = el.getBoundingClientRect();
      // Visually hidden on purpose (1 px, or moved off screen like the skip link until it has focus).
      if (r.width < 2 || r.height < 2 || r.bottom <= 0 || r.right <= 0) return false;
      return true;
    };

    /** The next ancestor that can clip `el`: none past a fixed element (its box is the viewport's). */
    const clippingParent = (el: HTMLElement) => (getComputedStyle(el).position === 'fixed' ? null : el.parentElement);

    /** The element's box as far as it is not scrolled away inside its scroll containers. */
    const visibleBox = (el: HTMLElement) => {
      let { left, top, right, bottom } = el.getBoundingClientRect();
      for (let a = clippingParent(el); a; a = clippingParent(a)) {
        const s = getComputedStyle(a);
        if (s.overflowX === 'visible' && s.overflowY === 'visible') continue;
        const ar = a.getBoundingClientRect();
        left = Math.max(left, ar.left);
        top = Math.max(top, ar.top);
        right = Math.min(right, ar.right);
        bottom = Math.min(bottom, ar.bottom);
      }
      return { left, top, right, bottom };
    };

    const controls = [...scope.querySelectorAll<HTMLElement>('button, input, select, textarea, a[href], [role="tab"]')].filter(isShown);
    const boxes = controls.map((el) => ({ el, box: visibleBox(el), rect: el.getBoundingClientRect() }));

    for (const { el, rect } of boxes) {
      // Clipped horizontally: by the viewport, or by an ancestor that hides or scrolls overflow on that axis.
      if (rect.left < -1 || rect.right > window.innerWidth + 1) problems.push(`clipped by the viewport: ${describe(el)}`);
      for (let a = clippingParent(el); a; a = clippingParent(a)) {
        const s = getComputedStyle(a);
        if (s.overflowX === 'visible') continue;
        const ar = a.getBoundingClientRect();
        if (rect.left < ar.left - 1 || rect.right > ar.right + 1) {
          problems.push(`clipped by ${a.tagName.toLowerCase()}.${a.className}: ${describe(el)}`);
          break;
        }
      }
      // A placeholder wider than the field's text box is cut off.
      if (el instanceof HTMLInputElement && el.placeholder) {
        const s = getComputedStyle(el);
        const ctx = document.createElement('canvas').getContext('2d');
        if (ctx) {
          ctx.font = `${s.fontStyle} ${s.fontWeight} ${s.fontSize} ${s.fontFamily}`;
          const room = el.clientWidth - parseFloat(s.paddingLeft) - parseFloat(s.paddingRight) - (el.type === 'search' ? 20 : 0);
          if (ctx.measureText(el.placeholder).width > room + 1) problems.push(`placeholder cut off: ${describe(el)}`);
        }
      }
      // Touch target: the control, or for a radio/checkbox its label.
      const target = el instanceof HTMLInputElement && (el.type === 'radio' || el.type === 'checkbox') ? (el.closest('label') ?? el) : el;
      const t = target.getBoundingClientRect();
      if (t.width < MIN - 0.5 || t.height < MIN - 0.5) problems.push(`touch target ${Math.round(t.width)}×${Math.round(t.height)}: ${describe(el)}`);
    }
    for (let i = 0; i < boxes.length; i++) {
      for (let j = i + 1; j < boxes.length; j++) {
        const a = boxes[i]!;
        const b = boxes[j]!;
        if (a.el.contains(b.el) || b.el.contains(a.el)) continue;
        const w = Math.min(a.box.right, b.box.right) - Math.max(a.box.left, b.box.left);
        const h = Math.min(a.box.bottom, b.box.bottom) - Math.max(a.box.top, b.box.top);
        if (w > 1 && h > 1) problems.push(`overlap ${Math.round(w)}×${Math.round(h)}: ${describe(a.el)} / ${describe(b.el)}`);
      }
    }
    // Radios of one group are the same size (one radio in the options dialog was smaller than the rest).
    const radioSizes = new Map<string, Set<string>>();
    for (const { el, rect } of boxes) {
      if (!(el instanceof HTMLInputElement) || el.type !== 'radio') continue;
      const sizes = radioSizes.get(el.name) ?? new Set<string>();
      sizes.add(`${Math.round(rect.width)}×${Math.round(rect.height)}`);
      radioSizes.set(el.name, sizes);
    }
    for (const [name, sizes] of radioSizes) if (sizes.size > 1) problems.push(`radios of "${name}" differ in size: ${[...sizes].join(', ')}`);
    const h1s = [...document.querySelectorAll<HTMLElement>('h1')].filter((h) => !h.closest('[hidden]') && getComputedStyle(h).display !== 'none');
    if (h1s.length !== 1) problems.push(`${h1s.length} h1 on the screen (${h1s.map((h) => h.textContent).join(', ')})`);
    return problems;
  });
}

/**
 * Text fields and drop-downs under `scope` (a CSS selector) that still have the browser's own look instead of the
 * register's: an inset border or square corners (Chromium's default text field), or a drop-down drawn by the
 * platform (`appearance` not `none`). Checkboxes, radios and hidden fields are not text fields. Empty when all are styled.
 */
export async function nativeLookingFields(page: Page, scope: string): Promise<string[]> {
  return page.evaluate((selector) => {
    const problems: string[] = [];
    for (const root of document.querySelectorAll(selector)) {
      for (const el of root.querySelectorAll<HTMLInputElement | HTMLSelectElement>('input, select')) {
        if (el instanceof HTMLInputElement && ['checkbox', 'radio', 'hidden', 'range', 'color', 'file'].includes(el.type)) continue;
        if (el.getClientRects().length === 0) continue;
        const s = getComputedStyle(el);
        const why = [
          s.borderTopStyle === 'inset' ? 'inset border' : '',
          parseFloat(s.borderTopLeftRadius) < 2 ? 'square corners' : '',
          el instanceof HTMLSelectElement && s.appearance !== 'none' ? `appearance ${s.appearance}` : '',
        ].filter(Boolean);
        const name = el.getAttribute('data-testid') || el.id || el.name;
        if (why.length > 0) problems.push(`${el.tagName.toLowerCase()} "${name}": ${why.join(', ')}`);
      }
    }
    return problems;
  }, scope);
}

/**
 * Boxes matching `selector` whose content sticks out: content wider than the box (a long word or a price pushed past
 * its border), a child element past its left or right edge, or the box itself past the viewport's right edge. Each
 * as "… by N px" (empty when all fit).
 */
export async function overflowingBoxes(page: Page, selector: string): Promise<string[]> {
  return page.evaluate((sel) => {
    const problems: string[] = [];
    for (const el of document.querySelectorAll<HTMLElement>(sel)) {
      if (el.getClientRects().length === 0) continue;
      const name = `${el.tagName.toLowerCase()}.${[...el.classList].join('.')} "${(el.textContent ?? '').trim().slice(0, 40)}"`;
      const box = el.getBoundingClientRect();
      if (el.scrollWidth > el.clientWidth + 1) problems.push(`${name}: content wider than its box by ${el.scrollWidth - el.clientWidth} px`);
      for (const child of el.querySelectorAll<HTMLElement>('*')) {
        const r = child.getBoundingClientRect();
        if (r.width === 0) continue;
        const out = Math.max(r.right - box.right, box.left - r.left);
        if (out > 1)
          problems.push(`${name}: ${child.tagName.toLowerCase()} "${(child.textContent ?? '').trim().slice(0, 30)}" out by ${Math.round(out)} px`);
      }
      if (box.right > window.innerWidth + 1) problems.push(`${name}: past the viewport by ${Math.round(box.right - window.innerWidth)} px`);
    }
    return problems;
  }, selector);
}
