//! `--ibm-mode` against a real `qchess serve` on 127.0.0.1: a game on ibm_fez runs in one
//! dedicated session that the stand-in lists every job of and that is closed when the game
//! ends; `batch` opens a batch and `jobs` sends lone jobs; an instance on the Open Plan falls
//! back to a batch and says so once; a kept game rejoins its open session and opens a new one
//! once its session was closed; a web game's session ends with the game, or when the game is
//! deleted before its end; bad values exit 2.

use qchess_remote::config::ApiKey;
use qchess_remote::ibm::{IbmClient, IbmConfig};
use serde_json::Value;

use crate::common::{Run, Served};
use crate::ibm::{KEY, on_serve, run, serve_with};

/// Moves with a measured move (f2f3 onto a superposed f3), so that the game runs several jobs:
/// the measurement's and the positions' after it.
const MOVES: &str = "g1^f3h3 b8^a6c6 f2f3.m1 c6^d4e5";

/// A client of the stand-in at `served`.
fn client(served: &Served) -> IbmClient {
    let config = IbmConfig::new(ApiKey::new(KEY).expect("a key"), "crn:v1:qchess:test", "ibm_fez").at(&served.url);
    IbmClient::new(config).expect("a client")
}

fn block_on<T>(future: impl Future<Output = T>) -> T {
    tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a runtime").block_on(future)
}

/// Asks the stand-in at `served` for `path` under its API (`jobs?...`, `sessions/ID`).
fn api(served: &Served, path: &str) -> Value {
    block_on(client(served).get("asking the stand-in", path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Every job the stand-in keeps: (id, session id).
fn jobs(served: &Served, query: &str) -> Vec<(String, Option<String>)> {
    let listed = api(served, &format!("jobs?limit=100{query}"));
    listed["jobs"]
        .as_array()
        .expect("jobs")
        .iter()
        .map(|job| (job["id"].as_str().expect("id").to_owned(), job["session_id"].as_str().map(str::to_owned)))
        .collect()
}

/// The one session every job of the stand-in went into; panics when they went into several or
/// none.
fn the_session(served: &Served) -> String {
    let all = jobs(served, "");
    assert!(all.len() >= 2, "a measured move and the final position: {all:?}");
    let session = all[0].1.clone().unwrap_or_else(|| panic!("a lone job: {all:?}"));
    assert!(all.iter().all(|(_, s)| s.as_deref() == Some(session.as_str())), "{all:?}");
    let listed = jobs(served, &format!("&session_id={session}"));
    assert_eq!(listed.len(), all.len(), "the session lists every job of the game");
    session
}

fn game(served: &Served, extra: &[&str]) -> Run {
    let args = [&["game", "--json", "--backend", "ibm:ibm_fez", "--shots", "200", "--moves", MOVES][..], extra];
    let played = run(on_serve(served, &args.concat()));
    assert_eq!(played.code, Some(0), "{}", played.stderr);
    played
}

#[test]
fn a_game_runs_in_one_session_closed_when_it_ends() {
    let served = serve_with(3600, &[]);
    game(&served, &[]);
    let session = api(&served, &format!("sessions/{}", the_session(&served)));
    assert_eq!(session["mode"], "dedicated", "{session}");
    assert_eq!(session["accepting_jobs"], false, "closed when the game ended: {session}");
    assert_eq!(session["state"], "closed", "its jobs are over: {session}");
}

#[test]
fn batch_opens_a_batch_and_jobs_sends_lone_jobs() {
    let served = serve_with(3600, &[]);
    game(&served, &["--ibm-mode", "batch"]);
    let batch = api(&served, &format!("sessions/{}", the_session(&served)));
    assert_eq!((&batch["mode"], &batch["accepting_jobs"]), (&"batch".into(), &false.into()), "{batch}");

    let lone = serve_with(3600, &[]);
    game(&lone, &["--ibm-mode", "jobs"]);
    let all = jobs(&lone, "");
    assert!(all.len() >= 2 && all.iter().all(|(_, session)| session.is_none()), "{all:?}");
}

#[test]
fn an_open_plan_instance_runs_the_game_in_a_batch_and_says_so_once() {
    let served = serve_with(3600, &["--ibm-plan", "open"]);
    let played = game(&served, &[]);
    let batch = api(&served, &format!("sessions/{}", the_session(&served)));
    assert_eq!(batch["mode"], "batch", "{batch}");
    let told = played.stderr.matches("run in a batch instead").count();
    assert_eq!(told, 1, "{}", played.stderr);
    assert!(played.stderr.contains("not authorized to run a session when using the open plan"), "{}", played.stderr);
}

#[test]
fn bad_modes_and_plans_exit_2_naming_the_choices() {
    for (args, flag) in [
        (vec!["game", "--backend", "ibm:ibm_fez", "--ibm-mode", "sessions", "--moves", "b1^a3c3"], "--ibm-mode"),
        (vec!["serve", "--addr", "127.0.0.1:0", "--ibm-plan", "free"], "--ibm-plan"),
        (vec!["serve", "--addr", "127.0.0.1:0", "--game-ibm-mode", "x"], "--game-ibm-mode"),
    ] {
        let refused = run({
            let mut command = crate::common::command();
            command.args(&args);
            command
        });
        assert_eq!(refused.code, Some(2), "{args:?}: {}", refused.stderr);
        assert!(refused.stderr.contains(flag), "{args:?}: {}", refused.stderr);
        let choices = if flag == "--ibm-plan" { "premium or open" } else { "session, batch or jobs" };
        assert!(refused.stderr.contains(choices), "{args:?}: {}", refused.stderr);
    }
}

/// A kept game keeps its session: resumed while the session is open, its next job joins it;
/// once the session was closed, the next job opens a new one, which the game keeps.
#[test]
fn a_kept_game_rejoins_its_open_session_and_replaces_a_closed_one() {
    let served = serve_with(3600, &[]);
    let dir = tempfile::tempdir().expect("a directory");
    let db = dir.path().join("games.db");
    let kept = |args: &[&str], input: &str| {
        let mut command = crate::common::command();
        command.args(args).env("QCHESS_DB", &db).env("QCHESS_IBM_URL", &served.url);
        command.env("QISKIT_IBM_TOKEN", KEY).env("QISKIT_IBM_INSTANCE", "crn:v1:qchess:test");
        let (code, out) = crate::common::run_with_input(command, input);
        assert_eq!(code, Some(0), "{args:?}: {out}");
        out
    };
    let shown =
        |id: &str| -> Value { serde_json::from_str(&kept(&["games", "--json", "show", id], "")).expect("JSON") };
    kept(&["game", "--store", "--backend", "ibm:ibm_fez", "--shots", "200", "--moves", "b1^a3c3 e7e6"], "");
    let listed: Value = serde_json::from_str(&kept(&["games", "--json", "list"], "")).expect("JSON");
    let id = listed["games"][0]["id"].as_str().expect("an id").to_owned();
    let first = shown(&id)["provider_session"].as_str().expect("a kept session").to_owned();
    let session = api(&served, &format!("sessions/{first}"));
    assert_eq!(session["accepting_jobs"], true, "the game goes on, so its session stays open: {session}");

    kept(&["games", "resume", &id, "--ascii"], "g1^f3h3\n");
    assert_eq!(shown(&id)["provider_session"], first.as_str(), "rejoined");
    let in_first = jobs(&served, &format!("&session_id={first}")).len();
    assert!(in_first >= 2, "the resumed game's job went into the open session: {in_first}");

    block_on(client(&served).end_session(&first, false)).expect("closed");
    kept(&["games", "resume", &id, "--ascii"], "g8^f6h6\n");
    let second = shown(&id)["provider_session"].as_str().expect("a kept session").to_owned();
    assert_ne!(second, first, "a closed session is replaced");
    assert_eq!(jobs(&served, &format!("&session_id={first}")).len(), in_first, "nothing more joined the closed one");
    assert!(!jobs(&served, &format!("&session_id={second}")).is_empty(), "the new session took the job");
}

#[test]
fn a_web_games_session_is_closed_when_the_game_ends() {
    let standin = serve_with(3600, &[]);
    // The web board's games reach IBM as the environment says.
    let board = web_board(&standin);
    let http = reqwest::blocking::Client::new();
    let (id, white) = web_game_after_a_move(&http, &board, "human");
    let session = the_session_of_one_job(&standin);
    assert_eq!(api(&standin, &format!("sessions/{session}"))["accepting_jobs"], true);
    let resigned =
        http.post(format!("{}/api/games/{id}/resign", board.url)).bearer_auth(&white).send().expect("answers");
    assert_eq!(resigned.status(), 200, "{}", resigned.text().unwrap_or_default());
    let details = api(&standin, &format!("sessions/{session}"));
    assert_eq!(details["accepting_jobs"], false, "the game is over: {details}");
}

/// A web game deleted before its end (against the computer, so a seat may delete it) leaves no
/// session open behind it: the server cancels the session the store kept for it.
#[test]
fn a_web_game_deleted_before_its_end_cancels_its_session() {
    let standin = serve_with(3600, &[]);
    let board = web_board(&standin);
    let http = reqwest::blocking::Client::new();
    let (id, white) = web_game_after_a_move(&http, &board, "random");
    let session = the_session_of_one_job(&standin);
    assert_eq!(api(&standin, &format!("sessions/{session}"))["accepting_jobs"], true, "the game goes on");
    let deleted = http.delete(format!("{}/api/games/{id}", board.url)).bearer_auth(&white).send().expect("answers");
    assert_eq!(deleted.status(), 200, "{}", deleted.text().unwrap_or_default());
    let details = api(&standin, &format!("sessions/{session}"));
    assert_eq!(details["accepting_jobs"], false, "the game is gone: {details}");
    assert_eq!(details["state"], "closed", "nothing of it was left to run: {details}");
}

/// `qchess serve` with the web board's games on the stand-in at `standin`'s ibm_fez.
fn web_board(standin: &Served) -> Served {
    let mut command = crate::common::command();
    command
        .args(["serve", "--addr", "127.0.0.1:0", "--game-backend", "ibm:ibm_fez", "--seed", "5"])
        .env("QCHESS_IBM_URL", &standin.url)
        .env("QISKIT_IBM_TOKEN", KEY)
        .env("QISKIT_IBM_INSTANCE", "crn:v1:qchess:test")
        .stderr(std::process::Stdio::null());
    Served::from_command(command)
}

/// A web game on `board`, White a person and Black `black`, after White's first move (a job on
/// the device): its id and White's seat token.
fn web_game_after_a_move(http: &reqwest::blocking::Client, board: &Served, black: &str) -> (String, String) {
    let body = serde_json::json!({ "backend": "remote", "white": "human", "black": black });
    let game: Value =
        http.post(format!("{}/api/games", board.url)).json(&body).send().expect("answers").json().expect("JSON");
    let id = game["id"].as_str().expect("an id").to_owned();
    let white = game["seats"]["white"]["token"].as_str().expect("a seat").to_owned();
    let moved = http
        .post(format!("{}/api/games/{id}/moves", board.url))
        .bearer_auth(&white)
        .json(&serde_json::json!({ "move": "g1^f3h3" }))
        .send()
        .expect("answers");
    assert_eq!(moved.status(), 200, "{}", moved.text().unwrap_or_default());
    (id, white)
}

/// The session the stand-in's jobs went into, when they all went into one.
fn the_session_of_one_job(served: &Served) -> String {
    let all = jobs(served, "");
    let session = all.first().and_then(|(_, s)| s.clone()).unwrap_or_else(|| panic!("a job in a session: {all:?}"));
    assert!(all.iter().all(|(_, s)| s.as_deref() == Some(session.as_str())), "{all:?}");
    session
}
