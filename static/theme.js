// The colour scheme switch in the top bar: as the system says (the default), light or
// dark, kept in this browser. style.css draws each colour with light-dark(), so the
// switch only sets the page's data-theme.

import { local, KEY_THEME } from './state.js';

const CHOICES = ['light', 'dark'];

function apply(choice) {
  if (CHOICES.includes(choice)) document.documentElement.dataset.theme = choice;
  else delete document.documentElement.dataset.theme;
}

/** Applies the kept choice and wires the switch (a select: system, light, dark). */
export function initTheme(select) {
  const kept = local.get(KEY_THEME);
  const choice = CHOICES.includes(kept) ? kept : 'system';
  apply(choice);
  select.value = choice;
  select.addEventListener('change', () => {
    apply(select.value);
    if (CHOICES.includes(select.value)) local.set(KEY_THEME, select.value);
    else local.remove(KEY_THEME);
  });
}
