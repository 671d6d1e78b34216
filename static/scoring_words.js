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
 * The levels' measured strength, by game and level, where it has been measured: chess
 * against Stockfish 15.1 limited to a known Elo, each at 1 s a move (docs/BOTS.md, "Elo
 * against Stockfish", which gives each figure's interval and games). Levels and games
 * left out have not been measured this way.
 */
const BOT_ELO = {
  chess: { medium: 1720, hard: 2060 },
};

/** A level's measured strength in `game` in words ("about 1850"), or null where none was measured. */
export function botStrength(game, level) {
  const elo = BOT_ELO[game]?.[level];
  return Number.isFinite(elo) ? `about ${elo}` : null;
}

/** Where the figures of [botStrength] come from, for a tooltip. */
export const BOT_STRENGTH_EXPLAINED = 'Elo measured against Stockfish 15.1 at limited strength, '
  + 'both thinking 1 s a move (Parlor\'s docs/BOTS.md)';

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
