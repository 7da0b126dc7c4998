//! The actor boundary holds: no actor module imports another actor module (they talk only
//! through protocol messages), the egress proxy imports no actor, and the modules below
//! the actors (contract, protocol, bus, config, Docker and the neutral helpers) import no
//! actor and nothing of the composition layer. Read from the source tree, so a new import
//! across the boundary fails here.

use std::path::{Path, PathBuf};

/// The five actors, each a folder of `src/`.
const ACTORS: [&str; 5] = ["assessor", "scheduler", "supervisor", "monitor", "audit"];
/// The layers above the actors: they start them (`node`) or drive them (`commands`).
const ABOVE: [&str; 3] = ["node", "commands", "client"];
/// Modules below every actor.
const BELOW: [&str; 12] = [
    "actor",
    "cgroup",
    "protocol",
    "bus",
    "config",
    "docker",
    "owner",
    "panics",
    "text",
    "job_limits",
    "shutdown",
    "metrics",
];

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every `.rs` file of a module: `src/<name>.rs` or everything under `src/<name>/`.
fn files_of(module: &str) -> Vec<PathBuf> {
    let file = src().join(format!("{module}.rs"));
    if file.exists() {
        return vec![file];
    }
    let mut found = Vec::new();
    let mut dirs = vec![src().join(module)];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                found.push(path);
            }
        }
    }
    found
}

/// The `crate::<module>` paths a file names, outside comments.
fn crate_modules_named(path: &Path) -> Vec<(usize, String)> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut named = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let code = line.split("//").next().unwrap_or_default();
        for piece in code.split("crate::").skip(1) {
            let module: String = piece
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            named.push((number + 1, module));
        }
    }
    named
}

/// Every reference from `module` to one of `forbidden`, as `file:line -> target`.
fn crossings(module: &str, forbidden: &[&str]) -> Vec<String> {
    files_of(module)
        .iter()
        .flat_map(|path| {
            crate_modules_named(path)
                .into_iter()
                .filter(|(_, target)| target != module && forbidden.contains(&target.as_str()))
                .map(move |(line, target)| {
                    let file = path.strip_prefix(src()).unwrap().display().to_string();
                    format!("src/{file}:{line} -> crate::{target}")
                })
        })
        .collect()
}

#[test]
fn no_actor_imports_another_actor_or_the_layers_above() {
    let mut forbidden: Vec<&str> = ACTORS.to_vec();
    forbidden.extend(ABOVE);
    let mut found = Vec::new();
    for actor in ACTORS {
        let allowed_proxy = actor == "supervisor"; // it runs its host's egress proxy
        let mut crossings = crossings(actor, &forbidden);
        if !allowed_proxy {
            crossings.extend(self::crossings(actor, &["proxy"]));
        }
        found.extend(crossings);
    }
    assert!(
        found.is_empty(),
        "imports across the actor boundary:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_egress_proxy_and_the_modules_below_import_no_actor() {
    let mut forbidden: Vec<&str> = ACTORS.to_vec();
    forbidden.extend(ABOVE);
    let mut found = crossings("proxy", &forbidden);
    forbidden.push("proxy");
    for module in BELOW {
        found.extend(crossings(module, &forbidden));
    }
    assert!(
        found.is_empty(),
        "imports from below the actors:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_check_sees_a_crossing_when_there_is_one() {
    // The composition layer starts every actor, so it names them all.
    let found = crossings("node", &ACTORS);
    assert!(
        ACTORS
            .iter()
            .all(|a| found.iter().any(|f| f.ends_with(&format!("crate::{a}")))),
        "{found:?}"
    );
}
