// What a score and a rating are, in plain words (PROTOCOL.md §13.2–13.4): said under the
// leaderboard and on the game-over panel, wherever points and ratings are shown.

/** How a game's points are counted. */
export const SCORE_EXPLAINED = 'A win scores more the fewer moves it took and the less time the winner spent '
  + 'thinking; a draw scores only for that time; a loss scores nothing. Games from a set position, and games '
  + 'resigned, drawn or lost on time before each side made two moves, are not scored.';

/** What a rating is and how it moves. */
export const RATING_EXPLAINED = 'Ratings are Glicko-2: everyone starts at 1500, and beating a stronger player '
  + 'gains more than beating a weaker one. Games from a set position, aborted games and games that ended before '
  + 'each side made two moves are not rated.';
