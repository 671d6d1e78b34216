// The rules dialog: each game's rules for players, from GET /api/rules/{game}
// (docs/PROTOCOL.md §14), opened by a "Rules" button beside each game in the chooser and
// by the one in a room's header. The dialog is modal (showModal: the focus moves into
// it and stays there), Escape or Close shuts it, and the focus goes back to the button
// that opened it.
//
// The page writes server data as text, never as HTML. The rules are the one exception,
// kept safe by construction: their HTML is the server's own document (compiled into it
// from docs/games/, rendered from Markdown with raw HTML turned into text), and even so
// it is never assigned as markup here. DOMParser reads it into an inert document (no
// script runs, nothing loads), and only the elements of ALLOWED are copied over, with
// no attribute at all; any other element gives only its text. So whatever the answer
// held, the page gets headings, paragraphs, lists and emphasis, and nothing that acts.

import { el } from './dom.js';
import { gameTitle } from './boards/index.js';

/** The elements the rules may hold; anything else is reduced to its text. */
const ALLOWED = new Set(['H3', 'H4', 'H5', 'H6', 'P', 'UL', 'OL', 'LI', 'STRONG', 'EM', 'CODE', 'PRE', 'BLOCKQUOTE', 'HR', 'BR']);

/** Elements whose content is not text a person should read. */
const DROPPED = new Set(['SCRIPT', 'STYLE', 'TEMPLATE', 'NOSCRIPT', 'IFRAME', 'OBJECT', 'SVG', 'MATH']);

/** Copies `from`'s children into `to`, keeping only allowed elements, without attributes. */
function copyAllowed(from, to) {
  for (const node of from.childNodes) {
    if (node.nodeType === Node.TEXT_NODE) {
      to.append(document.createTextNode(node.data));
    } else if (node.nodeType === Node.ELEMENT_NODE) {
      const tag = node.tagName.toUpperCase();
      if (DROPPED.has(tag)) continue;
      if (ALLOWED.has(tag)) {
        const copy = document.createElement(tag.toLowerCase());
        copyAllowed(node, copy);
        to.append(copy);
      } else {
        copyAllowed(node, to);
      }
    }
  }
}

/** The rules' HTML as nodes of this page, through the allow-list. */
export function rulesNodes(html) {
  const parsed = new DOMParser().parseFromString(String(html ?? ''), 'text/html');
  const box = document.createDocumentFragment();
  copyAllowed(parsed.body, box);
  return box;
}

/** The server's settings that change a game's rules, as lines a person reads. */
function settingsLines(game, settings) {
  const s = settings && typeof settings === 'object' ? settings : {};
  const lines = [];
  if (game === 'fox_geese' && (s.first === 'geese' || s.first === 'fox')) {
    lines.push(['Moves first', s.first === 'geese' ? 'the geese (the first seat plays them)' : 'the fox (the first seat plays it)']);
  }
  if (game === 'fox_geese' && Number.isInteger(s.fox_wins_below)) {
    lines.push(['The fox wins by numbers', s.fox_wins_below > 0
      ? `as soon as fewer than ${s.fox_wins_below} geese are left`
      : 'never: it must leave the geese without a move']);
  }
  if (Number.isInteger(s.quiet_moves)) {
    const what = game === 'fox_geese' ? 'no goose eaten and no goose moving up' : 'no capture and no man moving';
    lines.push(['Quiet-move draw', s.quiet_moves > 0
      ? `after ${s.quiet_moves} moves by each side with ${what}`
      : 'off: only repetition draws a game that goes round in circles']);
  }
  return lines;
}

/** The rules dialog of the page (the <dialog data-testid="rules-dialog"> of index.html). */
export class RulesDialog {
  /** Finds the dialog's parts in `root` by their test ids (rules-dialog, rules-title, ...). */
  constructor(root = document) {
    const ui = {};
    for (const id of ['rules-dialog', 'rules-title', 'rules-body', 'rules-settings', 'rules-close']) {
      ui[id] = root.querySelector(`[data-testid="${id}"]`);
    }
    this.ui = ui;
    /** Answers already fetched, by game. */
    this.cache = new Map();
    /** The button that opened the dialog, which gets the focus back. */
    this.opener = null;
    /** The game asked for last: an older answer arriving late is not shown. */
    this.asked = null;
    ui['rules-close'].addEventListener('click', () => ui['rules-dialog'].close());
    ui['rules-dialog'].addEventListener('close', () => {
      const back = this.opener;
      this.opener = null;
      this.asked = null;
      if (back?.isConnected) back.focus();
    });
    // A click on the backdrop (outside the dialog's box) closes it too.
    ui['rules-dialog'].addEventListener('click', (event) => {
      if (event.target === ui['rules-dialog']) ui['rules-dialog'].close();
    });
  }

  /** Puts a "Rules" button beside each game of the chooser (its radio inputs). */
  addChooserButtons(fieldset) {
    for (const input of fieldset.querySelectorAll('input[name="game"]')) {
      const label = input.closest('label');
      if (!label || label.parentElement?.classList.contains('game-choice')) continue;
      const game = input.value;
      const group = el('span', 'game-choice');
      label.replaceWith(group);
      const b = el('button', 'small rules-link', 'Rules');
      b.type = 'button';
      b.dataset.testid = `rules-${game}`;
      b.setAttribute('aria-label', `Rules of ${gameTitle(game)}`);
      b.addEventListener('click', () => this.open(game, b));
      group.append(label, b);
    }
  }

  /** Opens the dialog on `game`'s rules; `opener` gets the focus back when it closes. */
  async open(game, opener) {
    const { ui } = this;
    const dialog = ui['rules-dialog'];
    this.opener = opener ?? document.activeElement;
    this.asked = game;
    dialog.dataset.game = game;
    ui['rules-title'].textContent = `${gameTitle(game)}: rules`;
    if (!dialog.open) dialog.showModal();
    ui['rules-body'].parentElement.scrollTop = 0;
    let answer = this.cache.get(game);
    if (!answer) {
      dialog.dataset.loaded = 'false';
      ui['rules-body'].replaceChildren(el('p', 'hint', 'Loading the rules…'));
      ui['rules-settings'].hidden = true;
      try {
        const res = await fetch(`/api/rules/${encodeURIComponent(game)}`, { headers: { accept: 'application/json' } });
        const body = await res.json().catch(() => null);
        if (!res.ok) throw new Error(body?.error?.message ?? `HTTP ${res.status}`);
        if (typeof body?.html !== 'string') throw new Error('the answer holds no rules');
        answer = body;
        this.cache.set(game, answer);
      } catch (err) {
        if (this.asked !== game) return;
        ui['rules-body'].replaceChildren(el('p', 'rules-error', `The rules could not be loaded: ${err.message}. Close this and try again.`));
        dialog.dataset.loaded = 'error';
        return;
      }
      if (this.asked !== game || !dialog.open) return;
    }
    this.show(game, answer);
  }

  /** Draws an answer: its title, the rules, and this server's settings. */
  show(game, answer) {
    const { ui } = this;
    if (typeof answer.title === 'string' && answer.title) ui['rules-title'].textContent = `${answer.title}: rules`;
    ui['rules-body'].replaceChildren(rulesNodes(answer.html));
    const lines = settingsLines(game, answer.settings);
    const box = ui['rules-settings'];
    box.hidden = lines.length === 0;
    const list = box.querySelector('dl');
    list.replaceChildren();
    for (const [term, value] of lines) {
      const row = el('div');
      row.append(el('dt', null, term), el('dd', null, value));
      list.append(row);
    }
    ui['rules-dialog'].dataset.loaded = 'true';
  }
}
