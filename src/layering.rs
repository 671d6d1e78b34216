//! Tests of the server's layering: which of its modules may import which, as
//! ARCHITECTURE.md's code map says. The rules crate's purity is the compiler's job (it
//! has no runtime, database or JSON library to import); these are the server's own rules.

use std::path::{Path, PathBuf};

/// The server's modules, as `crate::<name>`: every `mod` that `src/lib.rs` declares, so
/// that a new module is held to these rules from the day it is added.
fn modules() -> Vec<String> {
    let lib = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/lib.rs");
    let text = std::fs::read_to_string(lib).expect("src/lib.rs is readable");
    text.lines()
        .filter_map(|line| {
            let line = line.trim();
            let declared = line
                .strip_prefix("pub mod ")
                .or_else(|| line.strip_prefix("pub(crate) mod "))
                .or_else(|| line.strip_prefix("mod "))?;
            declared.strip_suffix(';').map(str::to_owned)
        })
        .collect()
}

/// Modules that stand (nearly) alone, and the only modules of this crate they may import.
const ONLY: &[(&str, &[&str])] = &[
    // Configuration is read before anything else exists.
    ("config", &[]),
    // The wire's vocabulary stands alone (the rooms' views it sends are `parlor_room`'s).
    ("protocol", &[]),
    // The operator's list of live connections is a table sessions write and routes and
    // the fleet read; it reaches into none of them, and keeps the error a connection
    // closed for its player is sent in the wire's own words.
    ("live", &["protocol", "alerts"]),
    // A connection's alerts are raised by rooms, the fleet and the operator's list, and
    // heard by the connection's task; they know none of them.
    ("alerts", &[]),
    // A worker thread's doorstep carries answers from other threads (the game log's
    // writer) to its tasks; it knows neither side.
    ("doorstep", &[]),
];

/// Each module and the modules of this crate it must never import.
const FORBIDDEN: &[(&str, &[&str])] = &[
    // The store keeps records; it knows nothing of who writes or reads them.
    (
        "store",
        &[
            "room", "lobby", "ws", "http", "protocol", "players", "limits", "resuming", "auth",
        ],
    ),
    // A room reports to the lobby through its own narrow interface, never by importing
    // it, and knows nothing of a fleet: whoever opens it gives it the token it writes
    // under.
    (
        "room",
        &["lobby", "ws", "http", "limits", "resuming", "fleet"],
    ),
    // The lobby finds and lists rooms; sessions and routes call it, not the other way.
    // It lists other nodes' rooms through its own trait, never by importing the fleet.
    ("lobby", &["ws", "http", "limits", "fleet"]),
    // HTTP routes read through the store's trait and never reach into sessions.
    ("http", &["ws", "limits"]),
    // The fleet passes room messages between nodes, keeps leases and adopts games;
    // sessions and routes use it, never the other way.
    ("fleet", &["ws", "http", "limits"]),
    // Bans are enforced at the edges (sessions, routes) and across the fleet; they know
    // nothing of the edges themselves, rooms or the lobby.
    ("bans", &["ws", "http", "room", "lobby", "limits"]),
    ("readiness", &["ws", "http", "room", "lobby", "limits"]),
    // Sign-in checks a site's tokens for the edges (sessions, routes) and knows nothing
    // of rooms, the lobby or a fleet.
    (
        "auth",
        &["room", "lobby", "ws", "http", "fleet", "limits", "players"],
    ),
];

/// The Rust files of module `name`: `src/name.rs` and everything under `src/name/`.
fn files_of(name: &str) -> Vec<PathBuf> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    let single = src.join(format!("{name}.rs"));
    if single.exists() {
        files.push(single);
    }
    let mut folders = vec![src.join(name)];
    while let Some(folder) = folders.pop() {
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    files
}

/// Every module of this crate a file names in code (not in comments), as
/// `crate::<module>` or inside a `crate::{…}` group.
fn imports(text: &str) -> Vec<String> {
    let code = text
        .lines()
        .filter(|line| !line.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n");
    let word = |rest: &str| -> String {
        rest.trim_start()
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect()
    };
    let mut found = Vec::new();
    for (at, _) in code.match_indices("crate::") {
        let rest = &code[at + "crate::".len()..];
        match rest.strip_prefix('{') {
            Some(group) => {
                let group = &group[..group.find('}').unwrap_or(group.len())];
                found.extend(group.split(',').map(word));
            }
            None => found.push(word(rest)),
        }
    }
    let modules = modules();
    found.retain(|name| modules.contains(name));
    found
}

/// Every import of a module of this crate, by file, in `module`'s files.
fn imports_of(module: &str) -> Vec<(PathBuf, String)> {
    let files = files_of(module);
    assert!(!files.is_empty(), "no source files for module {module}");
    files
        .into_iter()
        .flat_map(|file| {
            let text = std::fs::read_to_string(&file).unwrap();
            imports(&text)
                .into_iter()
                .filter(|imported| imported != module)
                .map(move |imported| (file.clone(), imported))
        })
        .collect()
}

#[test]
fn standalone_modules_import_only_what_they_may() {
    let mut broken = Vec::new();
    for (module, allowed) in ONLY {
        for (file, imported) in imports_of(module) {
            if !allowed.contains(&imported.as_str()) {
                broken.push(format!("{} imports crate::{imported}", file.display()));
            }
        }
    }
    assert!(broken.is_empty(), "layering broken:\n{}", broken.join("\n"));
}

#[test]
fn no_module_imports_what_it_must_not() {
    let mut broken = Vec::new();
    for (module, forbidden) in FORBIDDEN {
        for (file, imported) in imports_of(module) {
            if forbidden.contains(&imported.as_str()) {
                broken.push(format!("{} imports crate::{imported}", file.display()));
            }
        }
    }
    assert!(broken.is_empty(), "layering broken:\n{}", broken.join("\n"));
}

#[test]
fn only_the_store_knows_its_sql() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut folders = vec![src.clone()];
    let mut broken = Vec::new();
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                if path != src.join("store") {
                    folders.push(path);
                }
            } else if path.extension().is_some_and(|e| e == "rs")
                && path != src.join("layering.rs")
                && std::fs::read_to_string(&path)
                    .unwrap()
                    .contains("store::sql::")
            {
                broken.push(path.display().to_string());
            }
        }
    }
    assert!(
        broken.is_empty(),
        "outside the store, these name its SQL: {broken:?}"
    );
}

#[test]
fn every_module_the_rules_name_is_one_lib_declares() {
    let modules = modules();
    assert!(
        modules.len() > 10 && modules.iter().any(|name| name == "fleet"),
        "src/lib.rs's modules were not all read: {modules:?}"
    );
    let named = ONLY
        .iter()
        .chain(FORBIDDEN)
        .flat_map(|(module, others)| std::iter::once(*module).chain(others.iter().copied()));
    let unknown: Vec<&str> = named
        .filter(|name| !modules.iter().any(|module| module == name))
        .collect();
    assert!(
        unknown.is_empty(),
        "the layering rules name modules src/lib.rs does not declare: {unknown:?}"
    );
}

#[test]
fn the_import_reader_sees_paths_and_groups_and_skips_comments() {
    let text = "use crate::room::{Handle};\n// crate::ws is only mentioned\n\
                let x = crate::store::f();\nuse crate::{\n    lobby::Lobby,\n    AppState,\n};";
    assert_eq!(imports(text), ["room", "store", "lobby"]);
}
