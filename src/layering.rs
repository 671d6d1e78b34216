//! Tests of the server's layering: which of its modules may import which, as
//! ARCHITECTURE.md's code map says. The rules crate's purity is the compiler's job (it
//! has no runtime, database or JSON library to import); these are the server's own rules.

use std::path::{Path, PathBuf};

/// The server's modules, as `crate::<name>`.
const MODULES: &[&str] = &[
    "cluster",
    "config",
    "domain",
    "http",
    "limits",
    "lobby",
    "metrics",
    "players",
    "protocol",
    "ratings",
    "resuming",
    "room",
    "scoring",
    "scratch_schema",
    "store",
    "test_services",
    "thinkers",
    "ws",
];

/// Modules that stand (nearly) alone, and the only modules of this crate they may import.
const ONLY: &[(&str, &[&str])] = &[
    // Configuration is read before anything else exists.
    ("config", &[]),
    // Shared values know nothing of who uses them.
    ("domain", &[]),
    // The wire's vocabulary stands alone but for the seat kind.
    ("protocol", &["domain"]),
    // The fleet's coordination knows its settings and the store's tokens, nothing else
    // (its tests find their Redis as every test finds a service).
    ("cluster", &["config", "store", "test_services"]),
    // A test database's scratch schema needs nothing of the server but the variable
    // that names the database.
    ("scratch_schema", &["test_services"]),
    // The services tests need are named by the environment alone.
    ("test_services", &[]),
];

/// Each module and the modules of this crate it must never import.
const FORBIDDEN: &[(&str, &[&str])] = &[
    // The store keeps records; it knows nothing of who writes or reads them.
    (
        "store",
        &[
            "room", "lobby", "ws", "http", "protocol", "players", "limits", "resuming",
        ],
    ),
    // A room reports to the lobby through its own narrow interface, never by importing it.
    (
        "room",
        &["lobby", "ws", "http", "limits", "resuming", "relay"],
    ),
    // The lobby finds and lists rooms; sessions and routes call it, not the other way.
    ("lobby", &["ws", "http", "limits", "relay"]),
    // HTTP routes read through the store's trait and never reach into sessions.
    ("http", &["ws", "limits"]),
    // The relay passes room messages between nodes; sessions and routes use it.
    ("relay", &["ws", "http", "limits", "resuming"]),
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
    found.retain(|name| MODULES.contains(&name.as_str()));
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
fn the_import_reader_sees_paths_and_groups_and_skips_comments() {
    let text = "use crate::room::{Handle};\n// crate::ws is only mentioned\n\
                let x = crate::store::f();\nuse crate::{\n    lobby::Lobby,\n    AppState,\n};";
    assert_eq!(imports(text), ["room", "store", "lobby"]);
}
