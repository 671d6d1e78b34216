//! CI's smoke run of parlor-bench: about 50 connections for 2 seconds against a real
//! Parlor (debug build) that the generator starts and stops itself: once as it runs by
//! default (full states, a new room for every game) and once hearing of moves as
//! `moved` events and playing rematches. Keeps the generator working; the real
//! measurements are made by hand (BENCHMARKS.md).
//!
//! The server binary is another workspace member's: `cargo test --workspace` builds it
//! beside this crate's binaries.

use std::path::Path;
use std::process::Command;

use serde_json::Value;

/// Runs the generator with `args` on top of the smoke run's; its JSON report, checked
/// for what every run must show, and its text report.
fn smoke_run(args: &[&str]) -> (Value, String) {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("report.json");
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_parlor-bench"))
        .parent()
        .unwrap();
    assert!(
        bin_dir.join("parlor").exists(),
        "no server binary in {}: run `cargo test --workspace`, which builds it",
        bin_dir.display()
    );
    let output = Command::new(env!("CARGO_BIN_EXE_parlor-bench"))
        .args(["--connections", "48", "--duration", "2", "--warmup", "0.5"])
        .args(["--idle", "0.5", "--bin-dir"])
        .arg(bin_dir)
        .arg("--json")
        .arg(&json)
        .arg("--scratch-dir")
        .arg(dir.path())
        .args(args)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    assert!(stderr.contains("open-file limit"), "{stderr}");
    let report: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(report["target"], "parlor");
    assert_eq!(report["connections_held"], 48, "{report}");
    assert!(report["moves"].as_u64().unwrap() > 0, "{report}");
    assert!(
        report["latency_us"]["samples"].as_u64().unwrap() > 0,
        "{report}"
    );
    assert_eq!(report["errors"]["total"], 0, "{report}");
    // Every room went on from game to game, in new rooms or rematches: more games
    // finished in the window than there are rooms.
    assert!(
        report["games"].as_u64().unwrap() > report["rooms"].as_u64().unwrap(),
        "{report}"
    );
    assert!(
        ["disk", "tmpfs"].contains(&report["storage"].as_str().unwrap()),
        "{report}"
    );
    // Every broadcast is a state, a moved event or a game_over of a tic-tac-toe room:
    // far above 100 bytes of text.
    assert!(
        report["bytes_per_broadcast"].as_f64().unwrap() > 100.0,
        "{report}"
    );
    let server = &report["server"];
    assert!(server["rss_idle_bytes"].as_u64().unwrap() > 0, "{report}");
    assert!(
        server["cpu_per_move_us"].as_f64().unwrap() > 0.0,
        "{report}"
    );
    (report, stdout.into_owned())
}

#[test]
fn the_load_generator_plays_moves_without_errors() {
    let (states, text) = smoke_run(&[]);
    assert_eq!(states["updates"], "states", "{states}");
    assert_eq!(states["cycle"], "newroom", "{states}");
    assert!(text.contains("updates: states"), "{text}");
    assert!(text.contains("cycle newroom"), "{text}");
    let (moves, text) = smoke_run(&["--updates", "moves", "--cycle", "rematch"]);
    assert_eq!(moves["updates"], "moves", "{moves}");
    assert_eq!(moves["cycle"], "rematch", "{moves}");
    assert!(text.contains("updates: moves"), "{text}");
    // Most moves come as moved events, a fraction of a state's size; none do to
    // connections that did not ask.
    let bytes = |report: &Value| report["bytes_per_broadcast"].as_f64().unwrap();
    assert!(bytes(&moves) < bytes(&states), "{moves}\n{states}");
    let share = |report: &Value| report["moved_share"].as_f64().unwrap();
    assert!(share(&moves) > 0.5, "{moves}");
    assert_eq!(share(&states), 0.0, "{states}");
}
