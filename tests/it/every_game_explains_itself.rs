//! Every game explains itself: `GET /api/rules/{game}` serves each game's rules for
//! players, with the numbers this server's settings make true, and `GET /game/{id}`
//! serves the page that opens a stored game's replay.

use parlor::config::Config;
use parlor_rules::games::fox_geese::Side;
use serde_json::json;

use crate::common::{TestServer, temp_dir, test_config};

/// A server whose Fox & Geese and checkers rules are not the defaults.
fn unusual_rules(dir: &std::path::Path) -> Config {
    let mut config = test_config(dir);
    config.fox_geese.fox_wins_below = 5;
    config.fox_geese.quiet_moves = 25;
    config.fox_geese.first = Side::Fox;
    config.checkers.quiet_moves = 30;
    config.rooms.first_move_secs = 45;
    config
}

#[tokio::test]
async fn the_rules_say_this_servers_numbers() {
    let dir = temp_dir();
    let server = TestServer::start(unusual_rules(dir.path())).await;

    let (status, fox) = server.get_json("/api/rules/fox_geese").await;
    assert_eq!(status, 200, "{fox}");
    assert_eq!(fox["game"], "fox_geese");
    assert_eq!(fox["title"], "Fox & Geese");
    assert_eq!(
        fox["settings"],
        json!({"fox_wins_below": 5, "quiet_moves": 25, "first": "fox"})
    );
    let html = fox["html"].as_str().unwrap();
    for fact in [
        "The geese win by trapping the fox",
        "fewer than 5 geese are left",
        "Geese never move backward",
        "The fox may chain jumps",
        "The fox moves first",
        "after 25 moves by each side",
        "45 seconds",
    ] {
        assert!(html.contains(fact), "no \"{fact}\" in {html}");
    }
    assert!(!html.contains("{{"), "a placeholder is left: {html}");

    let (status, checkers) = server.get_json("/api/rules/checkers").await;
    assert_eq!(status, 200, "{checkers}");
    assert_eq!(checkers["settings"], json!({"quiet_moves": 30}));
    let html = checkers["html"].as_str().unwrap();
    assert!(html.contains("Captures are compulsory"), "{html}");
    assert!(html.contains("after 30 moves by each side"), "{html}");

    for game in ["tictactoe", "chess"] {
        let (status, rules) = server.get_json(&format!("/api/rules/{game}")).await;
        assert_eq!(status, 200, "{rules}");
        assert_eq!(rules["game"], game);
        assert_eq!(rules["settings"], json!({}));
        assert!(
            rules["html"].as_str().unwrap().contains("How to play here"),
            "{rules}"
        );
    }

    let (status, missing) = server.get_json("/api/rules/go").await;
    assert_eq!(status, 404, "{missing}");
    assert_eq!(missing["error"]["code"], "not_found");
    assert!(
        missing["error"]["message"]
            .as_str()
            .unwrap()
            .contains("fox_geese"),
        "{missing}"
    );
    server.stop().await;
}

#[tokio::test]
async fn a_stored_games_address_serves_the_page() {
    let dir = temp_dir();
    let server = TestServer::in_dir(dir.path()).await;
    let response = reqwest::get(server.url("/game/g_0123456789abcdef"))
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert!(
        response.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/html"),
        "{:?}",
        response.headers()
    );
    let page = response.text().await.unwrap();
    assert!(page.contains(r#"src="/app.js""#), "{page}");
    // Only one segment: deeper paths are not a game's address.
    let deeper = reqwest::get(server.url("/game/g_1/moves")).await.unwrap();
    assert_eq!(deeper.status(), 404);
    server.stop().await;
}
