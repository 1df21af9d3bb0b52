//! qchess's IBM client keeps a game's session against the real stand-in router: one session
//! for every job, a batch when the instance's plan refuses sessions, a kept session joined when
//! it is open and replaced when it is closed, unknown or inactive; and on a device kept busy by
//! other users' jobs, a session's job goes ahead of a lone job submitted before it.

mod ibm_common;

use std::time::Duration;

use ibm_common::{BELL, KEY, block_on, config, start_with};
use qchess_remote::ibm::{GameSession, IbmClient, IbmMode};
use qchess_standins::ibm::busy::BusyLoad;
use qchess_standins::ibm::{IbmOptions, IbmPlan};
use qchess_standins::{ServerKey, ibm};
use serde_json::Value;

fn options() -> IbmOptions {
    ibm::IbmOptions::new(Some(ServerKey::new(KEY).expect("a key")), Duration::from_secs(3600))
}

fn client(base: &str) -> IbmClient {
    IbmClient::new(config(base, KEY, "ibm_fez")).expect("client")
}

/// Runs a Bell pair in `session` (or alone) and waits for it; returns the job's id.
fn run(client: &IbmClient, session: Option<&str>) -> String {
    block_on(async {
        let deadline = client.deadline();
        let id = client.submit_in(BELL, 20, session, deadline).await.expect("submitted");
        client.follow(id.clone(), 20, deadline).await.expect("ran");
        id
    })
}

/// The job's timestamps: (created, running), in the service's ISO 8601 text (which sorts).
fn times(client: &IbmClient, id: &str) -> (String, String) {
    let metrics = block_on(client.get("metrics", &format!("jobs/{id}/metrics"))).expect("metrics");
    let text = |name: &str| metrics["timestamps"][name].as_str().unwrap_or_else(|| panic!("{metrics}")).to_owned();
    (text("created"), text("running"))
}

fn details(client: &IbmClient, id: &str) -> Value {
    block_on(client.get("session", &format!("sessions/{id}"))).expect("details")
}

#[test]
fn a_game_opens_one_session_for_every_job_and_closes_it() {
    let base = start_with(options());
    let client = client(&base);
    let mut game = GameSession::new(IbmMode::Session);
    let first = block_on(game.for_job(&client, client.deadline())).expect("opened").expect("a session");
    assert_eq!(game.take_opened().as_deref(), Some(first.as_str()), "a new session is told once");
    assert_eq!(game.take_opened(), None);
    run(&client, Some(&first));
    let again = block_on(game.for_job(&client, client.deadline())).expect("kept").expect("a session");
    assert_eq!(again, first, "the game's jobs share its session");
    assert_eq!(details(&client, &first)["mode"], "dedicated");
    block_on(game.end(&client, false)).expect("closed");
    assert_eq!(details(&client, &first)["accepting_jobs"], false);
    assert_eq!(game.current(), None);

    let mut lone = GameSession::new(IbmMode::Jobs);
    assert_eq!(block_on(lone.for_job(&client, client.deadline())).expect("nothing to open"), None);
}

#[test]
fn an_open_plan_instance_gets_a_batch() {
    let base = start_with(IbmOptions { plan: IbmPlan::Open, ..options() });
    let client = client(&base);
    let mut game = GameSession::new(IbmMode::Session);
    let id = block_on(game.for_job(&client, client.deadline())).expect("a batch").expect("an id");
    assert_eq!(details(&client, &id)["mode"], "batch");
    let refused = block_on(client.open_session(true, client.deadline())).expect_err("no sessions on the open plan");
    assert!(qchess_remote::ibm::plan_refuses_sessions(&refused), "{refused}");
}

#[test]
fn a_kept_session_is_joined_while_open_and_replaced_once_closed() {
    let base = start_with(options());
    let client = client(&base);
    let kept = block_on(client.open_session(true, client.deadline())).expect("opened").id;
    let mut resumed = GameSession::new(IbmMode::Session);
    resumed.keep(Some(kept.clone()));
    let joined = block_on(resumed.for_job(&client, client.deadline())).expect("joined");
    assert_eq!(joined.as_deref(), Some(kept.as_str()));
    assert_eq!(resumed.take_opened(), None, "nothing new to keep");

    block_on(client.end_session(&kept, false)).expect("closed");
    let mut later = GameSession::new(IbmMode::Session);
    later.keep(Some(kept.clone()));
    let fresh = block_on(later.for_job(&client, client.deadline())).expect("opened").expect("an id");
    assert_ne!(fresh, kept);
    assert_eq!(later.take_opened(), Some(fresh));
    let mut unknown = GameSession::new(IbmMode::Batch);
    unknown.keep(Some("no-such-session".into()));
    assert!(block_on(unknown.for_job(&client, client.deadline())).expect("opened").is_some());
}

/// A game away longer than its session's interactive time-to-live finds it inactive: it no
/// longer holds the device, so it is closed and a new one opened.
#[test]
fn a_kept_session_gone_inactive_is_closed_and_replaced() {
    let base = start_with(IbmOptions { interactive_ttl: Duration::from_secs(1), ..options() });
    let client = client(&base);
    let kept = block_on(client.open_session(true, client.deadline())).expect("opened").id;
    run(&client, Some(&kept));
    std::thread::sleep(Duration::from_millis(1100));
    assert_eq!(details(&client, &kept)["state"], "inactive");
    let mut resumed = GameSession::new(IbmMode::Session);
    resumed.keep(Some(kept.clone()));
    let fresh = block_on(resumed.for_job(&client, client.deadline())).expect("opened").expect("an id");
    assert_ne!(fresh, kept);
    assert_eq!(details(&client, &kept)["accepting_jobs"], false, "the inactive one was closed");
}

/// Under a load, a lone job submitted while a session holds the device waits: the session's
/// next job, submitted after it, runs first. Once the session is closed, the lone job runs.
#[test]
fn a_holding_sessions_job_goes_ahead_of_an_earlier_lone_job() {
    let load = BusyLoad { jobs: 1, job_length: Duration::from_millis(200) };
    let base = start_with(IbmOptions { busy: load, ..options() });
    let client = client(&base);
    let status = block_on(client.get("status", "backends/ibm_fez/status")).expect("a status");
    assert_eq!(status["length_queue"], 1, "the device says how many wait: {status}");
    let session = block_on(client.open_session(true, client.deadline())).expect("opened").id;
    run(&client, Some(&session));
    assert_eq!(details(&client, &session)["state"], "active", "it holds the device");
    let lone = std::thread::scope(|scope| {
        let lone = scope.spawn(|| run(&client, None));
        // The lone job is queued before the session's next job is submitted.
        let created = loop {
            let listed = block_on(client.get("jobs", "jobs?limit=10&pending=true")).expect("a list");
            if let Some(created) = listed["jobs"][0]["created"].as_str() {
                break created.to_owned();
            }
            std::thread::sleep(Duration::from_millis(10));
        };
        let next = run(&client, Some(&session));
        let (next_created, next_running) = times(&client, &next);
        assert!(created < next_created, "the lone job came first");
        block_on(client.end_session(&session, false)).expect("closed");
        (lone.join().expect("the lone job ran"), next_running)
    });
    let (lone_id, next_running) = lone;
    let (_, lone_running) = times(&client, &lone_id);
    assert!(next_running < lone_running, "the session's job ran at {next_running}, the lone one at {lone_running}");
}
