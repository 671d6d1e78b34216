// What a score and a rating are, in plain words (PROTOCOL.md §13.2–13.4), and whom a
// score was earned against: said under the leaderboard and on the game-over panel,
// wherever points and ratings are shown.

/** How a game's points are counted. */
export const SCORE_EXPLAINED = 'A win scores more the fewer moves it took and the less time the winner spent '
  + 'thinking; a draw scores only for that time; a loss scores nothing. Games from a set position, and games '
  + 'resigned, drawn or lost on time before each side made two moves, are not scored. Each score counts '
  + 'against its opponent: people, or one bot level.';

/** What a rating is and how it moves. */
export const RATING_EXPLAINED = 'Ratings are Glicko-2: everyone starts at 1500, and beating a stronger player '
  + 'gains more than beating a weaker one. Only games between two people are rated: games against the bots never '
  + 'are, nor games from a set position, aborted games and games that ended before each side made two moves.';

/** What the mark of a provisional rating ("1500?") means. */
export const PROVISIONAL_EXPLAINED = 'A rating marked ? is provisional: too few rated games yet to trust it '
  + '(about ten against settled players).';

/** The bots' levels, weakest first, as [wire name, title]: every level picker and the opponents' boards. */
export const BOT_LEVELS = [
  ['random', 'Random'],
  ['easy', 'Easy'],
  ['medium', 'Medium'],
  ['hard', 'Hard'],
];

/**
 * The levels' measured strength, by game (docs/BOTS.md gives each figure's interval and
 * games). Chess is on Stockfish 15.1's scale: levels against Stockfish limited to a known
 * Elo, each at 1 s a move, and the weak levels through a chain of node-limited searches.
 * Checkers and Fox & Geese have no outside engine to measure against: there the levels
 * played each other, and their Elo is counted from the Random level at 0. Levels and games
 * left out have not been measured.
 */
const BOT_ELO = {
  chess: { scale: 'stockfish', levels: { random: -230, easy: 360, medium: 1720, hard: 2050 } },
  checkers: { scale: 'random', levels: { easy: 550, medium: 1150, hard: 1870 } },
  fox_geese: { scale: 'random', levels: { easy: 170, medium: 390, hard: 710 } },
};

/** How each scale's figures were measured, for a tooltip. */
const SCALE_EXPLAINED = {
  stockfish: 'Elo measured against Stockfish 15.1 at limited strength, both thinking 1 s a move '
    + '(Parlor\'s docs/BOTS.md)',
  random: 'Elo measured by the levels playing each other, counted from the Random level at 0; '
    + 'no other game\'s figures compare with these (Parlor\'s docs/BOTS.md)',
};

/**
 * A level's measured strength in `game` in words ("about 1850" on Stockfish's scale,
 * "about 800 above Random" where the levels were measured against each other), or null
 * where none was measured.
 */
export function botStrength(game, level) {
  const measured = BOT_ELO[game];
  const elo = measured?.levels[level];
  if (!Number.isFinite(elo)) return null;
  const figure = elo < 0 ? `\u2212${-elo}` : `${elo}`;
  return measured.scale === 'random' ? `about ${figure} above Random` : `about ${figure}`;
}

/** Where the figures of [botStrength] for `game` come from, for a tooltip; null where there are none. */
export function strengthExplained(game) {
  return SCALE_EXPLAINED[BOT_ELO[game]?.scale] ?? null;
}

/** A level's title in a level picker for `game`: "Hard (about 1850)" where measured. */
export function levelTitle(game, level, title) {
  const strength = botStrength(game, level);
  return strength ? `${title} (${strength})` : title;
}

/**
 * The opponents a score can be earned against (`opponent` of PROTOCOL.md §13.3), in
 * the order the leaderboard offers them, each with its name as a board's title.
 */
export const OPPONENTS = [
  ['person', 'People'],
  ...BOT_LEVELS.map(([level, title]) => [`bot:${level}`, `${title} bot`]),
];

/** Whom a score was earned against, after "against": "a person", "Easy bot"; null when unknown. */
export function opponentWords(opponent) {
  if (opponent === 'person') return 'a person';
  const level = typeof opponent === 'string' && opponent.startsWith('bot:') ? opponent.slice(4) : '';
  if (!/^[a-z]+$/.test(level)) return null;
  return `${level.charAt(0).toUpperCase()}${level.slice(1)} bot`;
}
