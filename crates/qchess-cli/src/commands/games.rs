//! `qchess games`: the games kept in the store (`--db`): list them, show one, resume one (its
//! waiting move's job is polled again, never submitted twice), cancel a waiting move (its job is
//! canceled at the provider and the move taken back), or export one's record.

use std::path::PathBuf;

use anyhow::Result;
use qchess_remote::journal::JobEnd;
use qchess_store::replay::export;
use qchess_store::{GameSummary, JobRow, ListFilter, StoredGame};
use serde_json::{Value, json};

use super::play::{Session, SessionArgs, player_from_name};
use super::stored::{StoredPlay, backend_args, check_id};
use crate::backend::{Backend, RemoteArgs};
use crate::exit::bad_input;
use crate::output::print;
use crate::store::{DbArgs, Keeper};

/// Flags of `qchess games`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// What to do (default: list).
    #[command(subcommand)]
    action: Option<Action>,
    /// Where the games are kept.
    #[command(flatten)]
    db: DbArgs,
}

#[derive(Debug, clap::Subcommand)]
enum Action {
    /// List stored games, newest change first: id, rules, players, backend and status.
    List(ListArgs),
    /// Show one game: its players, backend, status, record and provider jobs.
    Show {
        /// The game's id.
        id: String,
    },
    /// Continue a game: its waiting move's job is polled again (never submitted twice), then
    /// play goes on as in `qchess play`.
    Resume(Box<ResumeArgs>),
    /// Cancel a game's waiting move: its job is canceled at the provider and the move taken back.
    Cancel(Box<CancelArgs>),
    /// Print a game's record (or write it to a file).
    Export {
        /// The game's id.
        id: String,
        /// Write the record here (atomically) instead of to stdout.
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
    },
}

#[derive(Debug, Default, clap::Args)]
struct ListArgs {
    /// Archived games too (web games unused for a while).
    #[arg(long)]
    all: bool,
    /// At most this many.
    #[arg(long, default_value_t = 50)]
    limit: u32,
}

#[derive(Debug, clap::Args)]
struct ResumeArgs {
    /// The game's id.
    id: String,
    /// Submit again the circuit of a job the provider lost (or whose submission was never
    /// answered), after checking the provider has no job of it.
    #[arg(long)]
    resubmit: bool,
    /// How the session runs.
    #[command(flatten)]
    session: SessionArgs,
    /// Remote flags (keys, `--timeout` for the foreground wait); the game keeps its backend.
    #[command(flatten)]
    remote: RemoteArgs,
}

#[derive(Debug, clap::Args)]
struct CancelArgs {
    /// The game's id.
    id: String,
    /// Remote flags (keys) to reach the provider.
    #[command(flatten)]
    remote: RemoteArgs,
}

/// Runs `qchess games`.
pub fn run(args: Args, json: bool) -> Result<()> {
    let keeper = Keeper::open(&args.db)?;
    match args.action.unwrap_or(Action::List(ListArgs { limit: 50, ..ListArgs::default() })) {
        Action::List(list) => list_games(&keeper, &list, json),
        Action::Show { id } => show(&keeper, check_id(&id)?, json),
        Action::Resume(resume) => resume_game(keeper, *resume, json),
        Action::Cancel(cancel) => cancel_move(&keeper, &cancel, json),
        Action::Export { id, out } => {
            let stored = keeper.block(keeper.store().game(check_id(&id)?))?;
            let record = export(&stored);
            match out {
                Some(path) => record.save(&path).map_err(super::game::save_error),
                None => print(&format!("{record}\n")),
            }
        }
    }
}

fn summary_json(game: &GameSummary) -> Value {
    json!({
        "id": game.id, "origin": game.origin, "rules": game.rules, "white": game.white, "black": game.black,
        "backend": game.backend_label, "seed": game.seed, "result": game.result, "to_move": game.to_move,
        "ply": game.ply, "status": game.status(), "waiting": game.pending.is_some(),
        "job": game.waiting_job.as_ref().map(JobRow::to_json), "archived": game.archived,
        "created_at": game.created_at, "updated_at": game.updated_at,
    })
}

fn list_games(keeper: &Keeper, args: &ListArgs, json: bool) -> Result<()> {
    let filter =
        ListFilter { archived: args.all, finished: true, limit: Some(args.limit.max(1)), ..ListFilter::default() };
    let games = keeper.block(keeper.store().list(&filter))?;
    if json {
        return print(&format!(
            "{}\n",
            json!({ "store": keeper.store().location(), "games": games.iter().map(summary_json).collect::<Vec<_>>() })
        ));
    }
    if games.is_empty() {
        return print(&format!("No games in {}.\n", keeper.store().location()));
    }
    let mut text =
        format!("{:<12}  {:<9}  {:<32}  {:<24}  {:>4}  status\n", "id", "rules", "players", "backend", "ply");
    for game in &games {
        let players = format!("{} vs {}", game.white, game.black);
        text.push_str(&format!(
            "{:<12}  {:<9}  {:<32}  {:<24}  {:>4}  {}\n",
            game.id,
            game.rules,
            cut(&players, 32),
            cut(&game.backend_label, 24),
            game.ply,
            game.status()
        ));
    }
    print(&text)
}

/// `text` cut to `width` characters.
fn cut(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        return text.to_owned();
    }
    let mut cut: String = text.chars().take(width - 1).collect();
    cut.push('…');
    cut
}

fn show(keeper: &Keeper, id: &str, json: bool) -> Result<()> {
    let stored = keeper.block(keeper.store().game(id))?;
    let record = export(&stored).to_string();
    let session = keeper.block(keeper.store().provider_session(id))?;
    if json {
        let mut value = summary_json(&stored.summary);
        value["provider_session"] = json!(session);
        value["record"] = json!(record);
        value["pending"] = stored.summary.pending.as_ref().map_or(
            Value::Null,
            |p| json!({ "move": p.input, "since": p.started_at, "holder": p.holder, "message": p.message }),
        );
        value["jobs"] = json!(stored.jobs.iter().map(JobRow::to_json).collect::<Vec<_>>());
        return print(&format!("{value}\n"));
    }
    let summary = &stored.summary;
    let mut text = format!(
        "game {}: {} vs {}, {} rules, on {}\nstatus: {}\n",
        summary.id,
        summary.white,
        summary.black,
        summary.rules,
        summary.backend_label,
        summary.status()
    );
    if let Some(session) = &session {
        text.push_str(&format!("provider session: {session}\n"));
    }
    if let Some(pending) = &summary.pending {
        text.push_str(&format!("waiting move: {}", pending.input));
        if let Some(message) = &pending.message {
            text.push_str(&format!(" (last try: {message})"));
        }
        text.push('\n');
    }
    for job in &stored.jobs {
        text.push_str(&format!(
            "job {} ({}): {}{}\n",
            job.job_id.as_deref().unwrap_or(&job.name),
            job.state.name(),
            job.status.as_deref().unwrap_or("-"),
            job.message.as_deref().map(|m| format!(": {m}")).unwrap_or_default()
        ));
    }
    text.push('\n');
    text.push_str(&record);
    text.push('\n');
    print(&text)
}

fn resume_game(keeper: Keeper, args: ResumeArgs, json: bool) -> Result<()> {
    let id = check_id(&args.id)?.to_owned();
    let (stored, game, row, backend) = StoredPlay::resume(keeper, &id, &args.remote, args.resubmit)?;
    let players = [player_from_name(&row.summary.white), player_from_name(&row.summary.black)];
    let clock = super::clock::resumed(&row);
    let mut session = Session::new(stored, game, players, &args.session, backend, clock, json)?;
    session.finish_pending()?;
    session.start()
}

fn cancel_move(keeper: &Keeper, args: &CancelArgs, json: bool) -> Result<()> {
    let id = check_id(&args.id)?;
    let stored: StoredGame = keeper.block(keeper.store().game(id))?;
    if stored.summary.pending.is_none() {
        return Err(bad_input(format!("game {id} has no move waiting")));
    }
    let waiting: Vec<JobRow> = stored.jobs.iter().filter(|job| job.is_waiting()).cloned().collect();
    let mut canceled = Vec::new();
    let mut problems = Vec::new();
    if waiting.iter().any(|job| job.job_id.is_some()) {
        let backend_args = backend_args(&stored, &args.remote)?;
        let backend = Backend::resolve(&backend_args.backend, &backend_args.remote)?;
        for job_id in waiting.iter().filter_map(|job| job.job_id.clone()) {
            let result = backend.remote_config().map(|config| qchess_remote::board::cancel_job(config, &job_id));
            match result {
                Some(Err(error)) => problems.push(format!("job {job_id}: {}", qchess_core::text::with_causes(&error))),
                _ => {
                    keeper.block(keeper.store().end_job(id, &job_id, &JobEnd::Canceled))?;
                    canceled.push(job_id);
                }
            }
        }
    }
    keeper.block(keeper.store().abandon_reservations(id))?;
    let pending = keeper.block(keeper.store().cancel_pending(id))?;
    let taken = pending.map(|p| p.input).unwrap_or_default();
    if json {
        return print(&format!(
            "{}\n",
            json!({ "id": id, "canceled_jobs": canceled, "taken_back": taken, "problems": problems })
        ));
    }
    let mut text = format!("Took back the waiting move {taken} of game {id}");
    if !canceled.is_empty() {
        text.push_str(&format!("; canceled job {} at {}", canceled.join(", "), stored.summary.backend_label));
    }
    text.push_str(".\n");
    for problem in problems {
        text.push_str(&format!("warning: could not cancel {problem}; the job may still run at the provider\n"));
    }
    print(&text)
}
