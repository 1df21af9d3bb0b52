//! The route table as users see it, held against a copy (`tests/snapshots/routes.txt`): every
//! path the server's crates route, and on a real server the methods each path answers (the
//! `Allow` header of a method no route takes). A route added, dropped, renamed or given other
//! methods fails here until the copy is changed with it.

mod common;

use std::collections::BTreeSet;
use std::path::Path;

use common::{client, start};

/// The copy of the table: `METHOD PATH`, one route a line.
const SNAPSHOT: &str = include_str!("snapshots/routes.txt");

/// The crates whose sources hold the server's routes, from this crate's directory.
const ROUTING_CRATES: [&str; 2] = [".", "../qchess-standins"];

/// A method no route takes: the server answers it 405 with the methods the path takes.
const UNUSED_METHOD: &str = "TRACE";

/// Every `.route("PATH", ...)` path in the `.rs` files under `dir`.
fn routed_paths(dir: &Path, paths: &mut BTreeSet<String>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir).expect("a source directory").flatten().collect();
    entries.sort_by_key(std::fs::DirEntry::path);
    for entry in entries {
        let path = entry.path();
        if path.is_dir() {
            routed_paths(&path, paths);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&path).expect("readable");
            for (index, _) in text.match_indices(".route(") {
                let rest = &text[index + ".route(".len()..];
                let literal = rest.trim_start().strip_prefix('"').and_then(|r| r.split_once('"')).map(|(p, _)| p);
                let routed =
                    literal.unwrap_or_else(|| panic!("{}: a route whose path is not a literal", path.display()));
                paths.insert(routed.to_owned());
            }
        }
    }
}

/// `path` with its parameters filled in.
fn concrete(path: &str) -> String {
    path.replace("{id}", "00000000-0000-4000-8000-000000000000")
        .replace("{backend}", "simulator")
        .replace("{name}", "ibm_fez")
        .replace("{square}", "e4")
        .replace("{arn}", "arn%3Aaws%3Abraket")
        .replace("{bucket}", "a-bucket")
        .replace("{*key}", "results.json")
}

#[test]
fn every_route_keeps_its_path_and_methods() {
    let expected: BTreeSet<(String, String)> = SNAPSHOT
        .lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| {
            let (method, path) = line.split_once(' ').unwrap_or_else(|| panic!("`{line}` is not METHOD PATH"));
            (path.to_owned(), method.to_owned())
        })
        .collect();
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut paths = BTreeSet::new();
    for dir in ROUTING_CRATES {
        routed_paths(&manifest.join(dir).join("src"), &mut paths);
    }
    let base = start(|_| {});
    let http = client();
    let method = reqwest::Method::from_bytes(UNUSED_METHOD.as_bytes()).expect("a method");
    let mut observed = BTreeSet::new();
    for path in &paths {
        let response = http.request(method.clone(), format!("{base}{}", concrete(path))).send().expect("answers");
        assert_eq!(response.status(), reqwest::StatusCode::METHOD_NOT_ALLOWED, "{UNUSED_METHOD} {path}");
        let allow = response.headers().get("allow").and_then(|v| v.to_str().ok()).unwrap_or("").to_owned();
        assert!(!allow.is_empty(), "{path}: no Allow header");
        for allowed in allow.split(',').map(str::trim) {
            observed.insert((path.clone(), allowed.to_owned()));
        }
    }
    let lines = |routes: Vec<&(String, String)>| -> String {
        routes.iter().map(|(path, method)| format!("\n  {method} {path}")).collect()
    };
    let extra = lines(observed.difference(&expected).collect());
    let missing = lines(expected.difference(&observed).collect());
    assert!(
        extra.is_empty() && missing.is_empty(),
        "the routes differ from tests/snapshots/routes.txt;\nrouted but not in the copy:{extra}\nin the copy but not routed:{missing}"
    );
}
