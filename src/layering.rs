//! Tests of the server's layering: which of its modules may import which, as
//! ARCHITECTURE.md's code map says. The rules crate's purity is the compiler's job (it
//! has no runtime, database or JSON library to import); these are the server's own rules.

use std::path::{Path, PathBuf};

/// Each module and the modules of this crate it must never import.
const FORBIDDEN: &[(&str, &[&str])] = &[
    // The wire's vocabulary stands alone.
    (
        "protocol",
        &["room", "lobby", "store", "ws", "http", "limits", "players"],
    ),
    // Configuration is read before anything else exists.
    (
        "config",
        &["room", "lobby", "store", "ws", "http", "limits", "players"],
    ),
    // The store keeps records; it knows nothing of who writes or reads them.
    (
        "store",
        &[
            "room", "lobby", "ws", "http", "protocol", "players", "limits",
        ],
    ),
    // A room reports to the lobby through its own narrow interface, never by importing it.
    ("room", &["lobby", "ws", "http", "limits"]),
    // The lobby finds and lists rooms; sessions and routes call it, not the other way.
    ("lobby", &["ws", "http", "limits"]),
    // HTTP routes read through the store's trait and never reach into sessions.
    ("http", &["ws", "limits"]),
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

/// Every `crate::<module>` a file names in code (not in comments).
fn imports(text: &str) -> Vec<String> {
    text.lines()
        .map(str::trim_start)
        .filter(|line| !line.starts_with("//"))
        .flat_map(|line| {
            line.match_indices("crate::")
                .map(move |(at, _)| &line[at + 7..])
        })
        .map(|rest| {
            rest.chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect()
        })
        .collect()
}

#[test]
fn no_module_imports_what_it_must_not() {
    let mut broken = Vec::new();
    for (module, forbidden) in FORBIDDEN {
        let files = files_of(module);
        assert!(!files.is_empty(), "no source files for module {module}");
        for file in files {
            let text = std::fs::read_to_string(&file).unwrap();
            for imported in imports(&text) {
                if forbidden.contains(&imported.as_str()) {
                    broken.push(format!("{} imports crate::{imported}", file.display()));
                }
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
fn the_import_reader_sees_code_and_skips_comments() {
    let text =
        "use crate::room::{Handle};\n// crate::ws is only mentioned\nlet x = crate::store::f();";
    assert_eq!(imports(text), ["room", "store"]);
}
