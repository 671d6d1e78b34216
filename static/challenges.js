// A person's challenges to bot accounts (docs/PROTOCOL.md §6.20, §6.21, §7.19–7.22):
// sending one from the Bots card, taking it back, and what its answer does: the game's
// room joined at the seat held there, or the bot's reason shown. Only the tab that made a
// challenge follows its answer.

import { app } from './state.js';
import { update } from './store.js';
import { showError, hideError, showNotice, dropNotice } from './notices.js';
import { send, refused, requireOnline, leaveCurrentRoom } from './actions.js';

/** Challenges the bot account `name` to `game`; its answer comes as a message. */
export function challengeBot(name, game, { timeControl, seat, rated }) {
  if (!requireOnline() || app.challenge) return;
  if (app.room?.role === 'player' && app.room.state?.status === 'playing') {
    showError('Finish or leave the game you are playing before you challenge a bot.', 'client_playing');
    return;
  }
  hideError();
  dropNotice('challenge');
  send((c) => c.challenge(name, game, { timeControl, seat, rated }).then((sent) => {
    update(() => {
      app.challenge = { id: sent.challenge, name: sent.name, game: sent.game, seat: sent.seat };
    });
  }));
}

/** Takes back the challenge waiting for its answer. */
export function takeBackChallenge() {
  const mine = app.challenge;
  if (!mine) return;
  const forget = () => { app.challenge = null; };
  send((c) => c.cancelChallenge(mine.id).then(() => update(forget)), (err) => {
    forget();
    refused(err);
  });
}

/** `challenge_accepted`: the bot took this tab's challenge; join the game's room at the seat held there. */
export function challengeAccepted(m) {
  const mine = app.challenge;
  if (!mine || mine.id !== m.challenge) return;
  app.challenge = null;
  // Whatever this tab was watching meanwhile makes way for the game.
  leaveCurrentRoom({ ask: false });
  app.pendingGame = mine.game;
  app.pendingBotFill = false;
  send((c) => c.join(m.room, m.seat));
  update();
}

/** `challenge_declined`: the bot (or the server for it) said no; say why. */
export function challengeDeclined(m) {
  const mine = app.challenge;
  if (!mine || mine.id !== m.challenge) return;
  app.challenge = null;
  showNotice(`${mine.name} declined your challenge: ${m.message}`, 'challenge');
  update();
}
