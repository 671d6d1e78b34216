//! `GET /api/rules/{game}`: each game's rules as a player reads them, from
//! docs/games/<game>.rules.md (compiled in), filled with this server's rule settings
//! (`fill`) and rendered to HTML (`markdown`) once, when the server starts.

use std::collections::HashMap;

use actix_web::{HttpResponse, web};
use schemars::JsonSchema;
use serde::Serialize;

use super::ApiError;
use crate::AppState;
use crate::config::Config;
use parlor_rules::GameKind;
use parlor_rules::games::fox_geese::Side;

mod fill;
mod markdown;

/// The Markdown source of a game's rules for players.
fn source(game: GameKind) -> &'static str {
    match game {
        GameKind::TicTacToe => include_str!("../../docs/games/tictactoe.rules.md"),
        GameKind::Checkers => include_str!("../../docs/games/checkers.rules.md"),
        GameKind::Chess => include_str!("../../docs/games/chess.rules.md"),
        GameKind::FoxGeese => include_str!("../../docs/games/fox_geese.rules.md"),
    }
}

/// What `GET /api/rules/{game}` answers: a game's rules and how to play it on this
/// server's page.
#[derive(Serialize, JsonSchema)]
#[schemars(rename = "GameRules")]
struct GameRules {
    /// The game.
    game: GameKind,
    /// The game's name, as the rules' title.
    title: String,
    /// The rules as HTML: headings `<h3>` and below, paragraphs, lists, `<strong>`,
    /// `<em>` and `<code>`, with no links, images, scripts or attributes. The numbers in
    /// it are this server's settings.
    html: String,
    /// This server's settings that change the game's rules (none for tic-tac-toe and
    /// chess).
    settings: RuleSettings,
}

/// A server's settings that change a game's rules (`[checkers]`, `[fox_geese]` in its
/// configuration): each field is there only for the games it applies to.
#[derive(Serialize, JsonSchema, Default)]
struct RuleSettings {
    /// Fox & Geese: the fox wins as soon as fewer geese than this remain (0: never by
    /// numbers alone).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "u32")]
    fox_wins_below: Option<u32>,
    /// Checkers and Fox & Geese: the game is drawn after this many moves by each side in
    /// a row without a capture (and in checkers no man moving, in Fox & Geese no goose
    /// moving up); 0: never.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "u32")]
    quiet_moves: Option<u32>,
    /// Fox & Geese: the side that moves first, played by seat 0.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "FirstSide")]
    first: Option<FirstSide>,
}

/// The side of Fox & Geese that moves first.
#[derive(Serialize, JsonSchema, Clone, Copy)]
#[serde(rename_all = "lowercase")]
enum FirstSide {
    /// The geese.
    Geese,
    /// The fox.
    Fox,
}

impl RuleSettings {
    /// `game`'s settings under `config`.
    fn of(game: GameKind, config: &Config) -> RuleSettings {
        match game {
            GameKind::TicTacToe | GameKind::Chess => RuleSettings::default(),
            GameKind::Checkers => RuleSettings {
                quiet_moves: Some(config.checkers.quiet_moves),
                ..RuleSettings::default()
            },
            GameKind::FoxGeese => RuleSettings {
                fox_wins_below: Some(config.fox_geese.fox_wins_below),
                quiet_moves: Some(config.fox_geese.quiet_moves),
                first: Some(match config.fox_geese.first {
                    Side::Geese => FirstSide::Geese,
                    Side::Fox => FirstSide::Fox,
                }),
            },
        }
    }
}

/// Every game's rules under one configuration, rendered once.
pub(crate) struct RulesBook {
    answers: HashMap<GameKind, GameRules>,
}

impl RulesBook {
    /// Renders every game's rules with `config`'s settings.
    pub(crate) fn new(config: &Config) -> RulesBook {
        let answers = GameKind::ALL
            .iter()
            .map(|&game| (game, page(game, config)))
            .collect();
        RulesBook { answers }
    }
}

/// `game`'s rules under `config`: the source's first line (`# Title`) is the title, the
/// rest the text.
fn page(game: GameKind, config: &Config) -> GameRules {
    let filled = fill::fill(source(game), config);
    let (first, body) = filled.split_once('\n').unwrap_or((filled.as_str(), ""));
    GameRules {
        game,
        title: first.trim_start_matches('#').trim().to_owned(),
        html: markdown::to_html(body),
        settings: RuleSettings::of(game, config),
    }
}

/// A game's rules for players, with how to play it on this server's page.
///
/// The text is this server's: its numbers (when the fox wins, when quiet moves draw,
/// who moves first) follow the server's settings, which `settings` also gives.
#[utoipa::path(get, path = "/api/rules/{game}", tag = "games",
    params(("game" = String, Path, example = "fox_geese", description = "The game: `tictactoe`, `checkers`, `chess` or `fox_geese`")),
    responses(
        (status = 200, description = "The game's rules", body = ref("#/components/schemas/GameRules")),
        (status = 404, description = "No game has that name", body = ref("#/components/schemas/Error")),
    ))]
pub(super) async fn rules(
    state: web::Data<AppState>,
    game: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let answer = game
        .parse::<GameKind>()
        .ok()
        .and_then(|game| state.rules.answers.get(&game))
        .ok_or_else(|| {
            ApiError::NotFound(format!(
                "there is no game \"{game}\"; the games are {}",
                GameKind::names()
            ))
        })?;
    Ok(HttpResponse::Ok().json(answer))
}

/// The schema of `GET /api/rules/{game}`'s answer, for the OpenAPI description.
pub(super) fn answer_schema(
    generator: &mut schemars::generate::SchemaGenerator,
) -> (String, serde_json::Value) {
    super::openapi::named::<GameRules>(generator)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_game_has_a_title_and_a_text_with_every_placeholder_filled() {
        let mut configs = vec![Config::default()];
        let mut other = Config::default();
        other.fox_geese.fox_wins_below = 0;
        other.fox_geese.quiet_moves = 0;
        other.fox_geese.first = Side::Fox;
        other.checkers.quiet_moves = 0;
        configs.push(other);
        for config in &configs {
            for &game in GameKind::ALL {
                let rules = page(game, config);
                assert!(
                    !rules.title.is_empty() && !rules.title.contains('#'),
                    "{game}"
                );
                assert!(!rules.html.contains("{{"), "{game}: {}", rules.html);
                assert!(
                    !rules.html.contains("<h1") && !rules.html.contains("<h2"),
                    "{game}"
                );
                for part in ["How it ends", "How to play here", "Any game can also end"] {
                    assert!(rules.html.contains(part), "{game} has no \"{part}\"");
                }
            }
        }
    }

    #[test]
    fn the_fox_geese_text_says_what_a_newcomer_must_know() {
        let html = page(GameKind::FoxGeese, &Config::default()).html;
        for fact in [
            "The geese win by trapping the fox",
            "fewer than 4 geese are left",
            "Geese never move backward",
            "The fox may chain jumps",
            "The geese move first",
        ] {
            assert!(html.contains(fact), "no \"{fact}\" in {html}");
        }
        let checkers = page(GameKind::Checkers, &Config::default()).html;
        assert!(checkers.contains("Captures are compulsory"), "{checkers}");
    }
}
