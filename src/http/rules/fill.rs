//! The placeholders of the players' rules (`{{fox_geese.fox_wins_below}}`), filled with
//! what this server's configuration makes true, so the text a player reads is the
//! game they will play here.

use crate::config::Config;
use parlor_rules::games::fox_geese::Side;

/// The part of every game's rules about endings any game has (resigning, leaving,
/// clocks), included where a game's text says `{{every_game}}`.
const EVERY_GAME: &str = include_str!("../../../docs/games/every_game.rules.md");

/// `source` with each `{{name}}` it holds replaced by that name's text under `config`.
/// A name this server does not know is left as written (a test keeps the documents
/// free of them).
pub(super) fn fill(source: &str, config: &Config) -> String {
    let mut out = String::with_capacity(source.len() + EVERY_GAME.len());
    let mut rest = source;
    while let Some(open) = rest.find("{{") {
        let Some(close) = rest[open..].find("}}").map(|close| open + close) else {
            break;
        };
        out.push_str(&rest[..open]);
        let name = &rest[open + 2..close];
        match value(name, config) {
            Some(text) => out.push_str(&text),
            None => out.push_str(&rest[open..close + 2]),
        }
        rest = &rest[close + 2..];
    }
    out.push_str(rest);
    out
}

/// The text of placeholder `name` under `config`, or `None` for a name it does not know.
fn value(name: &str, config: &Config) -> Option<String> {
    let fox_geese = &config.fox_geese;
    let text = match name {
        "every_game" => fill(EVERY_GAME, config),
        "rooms.reconnect_grace_secs" => config.rooms.reconnect_grace_secs.to_string(),
        "rooms.first_move_secs" => config.rooms.first_move_secs.to_string(),
        "fox_geese.first" => match fox_geese.first {
            Side::Geese => "**The geese move first**; then the fox and the geese take turns.",
            Side::Fox => "**The fox moves first**; then the geese and the fox take turns.",
        }
        .to_owned(),
        "fox_geese.fox_wins_below" => match fox_geese.fox_wins_below {
            0 => "Eating geese does not win by itself on this server: however few are \
                  left, the fox wins only when the geese cannot move."
                .to_owned(),
            below => format!(
                "**The fox also wins as soon as fewer than {below} geese are left** \
                 (this server's setting; three geese or fewer can never trap the fox)."
            ),
        },
        "fox_geese.quiet_moves" => quiet(
            fox_geese.quiet_moves,
            "no goose eaten and no goose moving up (straight or diagonally)",
        ),
        "checkers.quiet_moves" => quiet(
            config.checkers.quiet_moves,
            "no capture and no man moving (only kings going back and forth)",
        ),
        _ => return None,
    };
    Some(text)
}

/// The quiet-moves draw: after `moves` moves by each side in a row with `nothing`.
fn quiet(moves: u32, nothing: &str) -> String {
    match moves {
        0 => "There is no limit on quiet moves on this server: a game that goes round in \
              circles ends by repetition."
            .to_owned(),
        moves => format!(
            "**Quiet moves:** after {moves} moves by each side in a row with {nothing}, \
             the game is drawn at once."
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_numbers_are_this_servers() {
        let mut config = Config::default();
        config.fox_geese.fox_wins_below = 5;
        config.fox_geese.quiet_moves = 25;
        config.fox_geese.first = Side::Fox;
        config.rooms.reconnect_grace_secs = 90;
        let text = fill(
            "{{fox_geese.first}} {{fox_geese.fox_wins_below}} {{fox_geese.quiet_moves}} \
             {{every_game}}",
            &config,
        );
        assert!(text.contains("**The fox moves first**"), "{text}");
        assert!(text.contains("fewer than 5 geese are left"), "{text}");
        assert!(text.contains("after 25 moves by each side"), "{text}");
        assert!(text.contains("for 90 seconds"), "{text}");
    }

    #[test]
    fn a_rule_turned_off_is_said_to_be_off() {
        let mut config = Config::default();
        config.fox_geese.fox_wins_below = 0;
        config.checkers.quiet_moves = 0;
        let text = fill(
            "{{fox_geese.fox_wins_below}} {{checkers.quiet_moves}}",
            &config,
        );
        assert!(!text.contains("fewer than 0"), "{text}");
        assert!(
            text.contains("the fox wins only when the geese cannot move"),
            "{text}"
        );
        assert!(text.contains("no limit on quiet moves"), "{text}");
    }

    #[test]
    fn an_unknown_name_or_a_lone_brace_is_left_as_written() {
        let config = Config::default();
        assert_eq!(
            fill("a {{nothing}} b {{ c", &config),
            "a {{nothing}} b {{ c"
        );
    }
}
