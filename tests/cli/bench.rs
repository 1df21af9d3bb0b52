//! `qchess bench`.

use serde_json::Value;

use crate::common::qchess;

const FIELDS: [&str; 9] = [
    "name",
    "moves",
    "median_move_us",
    "p99_move_us",
    "max_move_us",
    "games_per_s",
    "peak_states",
    "bytes_per_state",
    "peak_rss_mb",
];

fn number(workload: &Value, field: &str) -> f64 {
    workload[field].as_f64().unwrap_or_else(|| panic!("{field} is a number in {workload}"))
}

#[test]
fn quick_json_follows_the_contract() {
    let run = qchess(&["bench", "--quick", "--json"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(run.stderr.is_empty(), "no progress lines with --json: {}", run.stderr);
    let json = run.json();
    let machine = json["machine"].as_str().expect("machine is a string");
    assert!(machine.contains("logical CPUs") && machine.contains("RAM"), "{machine}");
    let workloads = json["workloads"].as_array().expect("workloads is an array");
    let names: Vec<&str> = workloads.iter().map(|w| w["name"].as_str().expect("name")).collect();
    assert_eq!(
        names,
        ["fixed", "random-default", "random-split-heavy", "random-no-merge", "growth", "dense", "search"]
    );

    for workload in workloads {
        let object = workload.as_object().expect("an object");
        for field in FIELDS {
            let value = object.get(field).unwrap_or_else(|| panic!("{field} missing in {workload}"));
            assert!(value.is_number() || value.is_null() || field == "name", "{field} in {workload}");
        }
        let (median, p99, max) =
            (number(workload, "median_move_us"), number(workload, "p99_move_us"), number(workload, "max_move_us"));
        assert!(0.0 < median && median <= p99 && p99 <= max, "{workload}");
        assert!(number(workload, "moves") >= 1.0, "{workload}");
        // Read from /proc where the system has it.
        assert!(workload["peak_rss_mb"].is_null() || number(workload, "peak_rss_mb") > 0.0, "{workload}");
    }

    for random in &workloads[1..4] {
        assert!(number(random, "games_per_s") > 0.0, "{random}");
        assert!(number(random, "peak_states") >= 1.0, "{random}");
        let details = &random["details"];
        assert!(details["crosschecked_games"].as_u64().is_some_and(|n| n >= 1), "{random}");
        assert!(details["crosscheck_max_difference"].as_f64().is_some_and(|d| d <= 1e-9), "{random}");
    }
    assert_eq!(workloads[3]["details"]["merge_share"], 0.0);

    let growth = &workloads[4];
    assert!(growth["games_per_s"].is_null(), "games do not apply to growth: {growth}");
    assert!(number(growth, "peak_states") >= 4096.0, "{growth}");
    assert!(number(growth, "bytes_per_state") <= 32.0 + 1e-9, "{growth}");
    let cap_error = growth["details"]["cap_error"].as_str().expect("the cap was reached");
    assert!(cap_error.contains("more than the limit of"), "{cap_error}");

    let dense = &workloads[5];
    assert_eq!(number(dense, "bytes_per_state"), 16.0, "{dense}");
    let sizes = dense["details"]["sizes"].as_array().expect("sizes");
    assert!(sizes.iter().all(|s| s["ratio_to_floor"].as_f64().is_some_and(|r| r > 0.0)), "{dense}");
}

#[test]
fn one_workload_prints_a_table() {
    let run = qchess(&["bench", "--quick", "--workload", "fixed"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let header = run.stdout.lines().find(|l| l.starts_with("workload")).expect("a table header");
    for column in ["moves", "median us", "p99 us", "games/s", "peak states", "B/state", "RSS MiB"] {
        assert!(header.contains(column), "{header}");
    }
    assert!(run.stdout.lines().any(|l| l.starts_with("fixed ")), "{}", run.stdout);
    assert!(!run.stdout.contains("random-default"), "only the chosen workload: {}", run.stdout);
    assert!(run.stderr.contains("running fixed"), "progress on stderr: {}", run.stderr);
}

#[test]
fn an_unknown_workload_is_bad_input() {
    let run = qchess(&["bench", "--workload", "random"]);
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert!(run.stdout.is_empty());
    assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
    assert!(
        run.stderr.contains("--workload: unknown workload `random`; the workloads are fixed, random-default"),
        "{}",
        run.stderr
    );
}

#[test]
fn routing_without_qiskit_prints_only_ours_and_a_bad_interpreter_is_named() {
    let run = qchess(&["bench", "--quick", "--workload", "routing", "--json"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let json = run.json();
    let routing = &json["workloads"][0];
    assert_eq!(routing["name"], "routing");
    assert!(routing["details"]["qiskit"].as_str().is_some_and(|q| q.starts_with("not run")), "{routing}");
    let line = routing["details"]["ibm-fez, all games"].as_str().expect("a summary line");
    assert!(line.contains("two-qubit gates") && line.contains("ESP") && !line.contains("Qiskit"), "{line}");
    assert!(line.ends_with("0 on broken elements"), "{line}");

    let missing = qchess(&["bench", "--quick", "--workload", "routing", "--qiskit", "/nonexistent/python3"]);
    assert_eq!(missing.code, Some(1), "{}", missing.stderr);
    assert!(missing.stderr.contains("--qiskit: cannot start /nonexistent/python3"), "{}", missing.stderr);
}
