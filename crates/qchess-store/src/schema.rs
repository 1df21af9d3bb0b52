//! The schema and its migrations: each migration is a list of statements that both SQLite and
//! PostgreSQL run as written (integers are `BIGINT`, text is `TEXT`, times are milliseconds
//! since 1970), applied in order inside one transaction and counted in `qchess_schema`. A later
//! version adds columns or tables in a new entry of [`MIGRATIONS`]; none is ever edited.

/// The newest schema version this build knows.
pub const VERSION: i64 = MIGRATIONS.len() as i64;

/// Every migration, oldest first; migration `i` brings the schema to version `i + 1`.
pub const MIGRATIONS: &[&[&str]] = &[
    &[
        // One row per game: who, how, where, and where it stands.
        "CREATE TABLE games (
        id TEXT PRIMARY KEY,
        origin TEXT NOT NULL,
        rules TEXT NOT NULL,
        white TEXT NOT NULL,
        black TEXT NOT NULL,
        backend TEXT NOT NULL,
        backend_label TEXT NOT NULL,
        seed BIGINT NOT NULL,
        setup TEXT NOT NULL,
        record TEXT NOT NULL,
        options TEXT NOT NULL,
        owner TEXT,
        result TEXT NOT NULL,
        to_move TEXT NOT NULL,
        ply BIGINT NOT NULL,
        revision BIGINT NOT NULL,
        archived BIGINT NOT NULL,
        created_at BIGINT NOT NULL,
        updated_at BIGINT NOT NULL
    )",
        "CREATE INDEX games_by_owner ON games (owner, updated_at)",
        "CREATE INDEX games_by_update ON games (updated_at)",
        // What was played, in order: moves as entered and as recorded (with outcomes), and the
        // other events (mode changes, resignations, time losses).
        "CREATE TABLE game_events (
        game_id TEXT NOT NULL REFERENCES games (id) ON DELETE CASCADE,
        seq BIGINT NOT NULL,
        input TEXT NOT NULL,
        played TEXT NOT NULL,
        comment TEXT,
        played_at BIGINT NOT NULL,
        PRIMARY KEY (game_id, seq)
    )",
        // At most one move per game waits for a provider; the instance polling it holds a lease.
        "CREATE TABLE pending_moves (
        game_id TEXT PRIMARY KEY REFERENCES games (id) ON DELETE CASCADE,
        seq BIGINT NOT NULL,
        input TEXT NOT NULL,
        token TEXT NOT NULL,
        holder TEXT,
        lease_until BIGINT NOT NULL,
        attempts BIGINT NOT NULL,
        message TEXT,
        started_at BIGINT NOT NULL
    )",
        // Every job a game's board submitted, from the moment before it was sent.
        "CREATE TABLE provider_jobs (
        name TEXT PRIMARY KEY,
        game_id TEXT NOT NULL REFERENCES games (id) ON DELETE CASCADE,
        seq BIGINT NOT NULL,
        circuit TEXT NOT NULL,
        shots BIGINT NOT NULL,
        provider TEXT NOT NULL,
        job_id TEXT,
        state TEXT NOT NULL,
        status TEXT,
        queue_position BIGINT,
        predicted_wait_ms BIGINT,
        message TEXT,
        result TEXT,
        submitted_at BIGINT NOT NULL,
        updated_at BIGINT NOT NULL
    )",
        // A circuit has at most one live job per game: the database itself refuses a second.
        "CREATE UNIQUE INDEX provider_jobs_live ON provider_jobs (game_id, circuit, shots)
        WHERE state IN ('reserved', 'submitted', 'completed')",
        "CREATE INDEX provider_jobs_by_game ON provider_jobs (game_id, submitted_at)",
    ],
    // Version 2: who may do what in a game, its clocks and its offers.
    &[
        // A seated game's every move needs the seat's token; a public one anyone may watch.
        "ALTER TABLE games ADD COLUMN seated BIGINT NOT NULL DEFAULT 0",
        "ALTER TABLE games ADD COLUMN is_public BIGINT NOT NULL DEFAULT 1",
        // A seat (white, black, spectator): its bearer token kept only as a SHA-256 hash.
        "CREATE TABLE game_seats (
            game_id TEXT NOT NULL REFERENCES games (id) ON DELETE CASCADE,
            role TEXT NOT NULL,
            token_hash TEXT NOT NULL,
            claimed_at BIGINT,
            seen_at BIGINT,
            PRIMARY KEY (game_id, role)
        )",
        // Fischer clocks: each side's time left when the running side's turn began (`since`),
        // and when that side's time runs out (`deadline`, NULL while no clock runs).
        "CREATE TABLE game_clocks (
            game_id TEXT PRIMARY KEY REFERENCES games (id) ON DELETE CASCADE,
            base_ms BIGINT NOT NULL,
            increment_ms BIGINT NOT NULL,
            white_ms BIGINT NOT NULL,
            black_ms BIGINT NOT NULL,
            running TEXT NOT NULL,
            since BIGINT NOT NULL,
            deadline BIGINT
        )",
        "CREATE INDEX game_clocks_by_deadline ON game_clocks (deadline)",
        // Draw offers and takeback requests waiting for the opponent's answer; each holds while
        // the game's ply is at most `until_ply`.
        "CREATE TABLE game_offers (
            game_id TEXT NOT NULL REFERENCES games (id) ON DELETE CASCADE,
            kind TEXT NOT NULL,
            side TEXT NOT NULL,
            plies BIGINT NOT NULL,
            ply BIGINT NOT NULL,
            until_ply BIGINT NOT NULL,
            made_at BIGINT NOT NULL,
            PRIMARY KEY (game_id, kind)
        )",
    ],
    // Version 3: a casual game between two people keeps the coach open while it runs.
    &["ALTER TABLE games ADD COLUMN casual BIGINT NOT NULL DEFAULT 0"],
    // Version 4: the provider session (an IBM Quantum session or batch) the game's jobs go into.
    &["ALTER TABLE games ADD COLUMN provider_session TEXT"],
];
