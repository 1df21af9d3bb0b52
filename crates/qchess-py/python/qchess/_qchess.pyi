"""Typed signatures of the compiled core, `qchess._qchess`."""

from typing import Any, Iterable

__version__: str

class QchessError(Exception):
    """Base class of every error qchess raises."""

class ParseError(QchessError):
    """Text that is not what it should be: a move, FEN, square, record, backend or option."""

class IllegalMoveError(QchessError):
    """A well-formed move the rules or the board do not allow now."""

class BackendError(QchessError):
    """The quantum board or a remote provider failed."""

class Move:
    """A played move: what it was, what it measured and with which probability."""

    notation: str
    """The move in official notation with the outcome that happened (`b1wc3.m0`)."""
    typed: str
    """The typed move the board ran (`b1^a3c3:SPLIT_JUMP:BASIC`, `.m0`/`.m1` when it measured)."""
    type: str
    """How the move travels: `JUMP`, `SLIDE`, `SPLIT_JUMP`, ..."""
    type_: str
    """The same as `type`, for code that avoids the builtin's name."""
    variant: str
    """What its targets hold: `BASIC`, `EXCLUDED`, `CAPTURE`."""
    outcome: int | None
    """The measurement outcome (0 or 1), or `None` when the move measured nothing uncertain."""
    probability: float | None
    """The probability the outcome had before it happened (`None` when it was certain)."""
    proceeded: bool
    """Whether the move went ahead."""
    code: str
    """The official result code: `SUCCESS`, `WHITE_WIN`, `BLACK_WIN`, `DRAW`, ..."""

class Game:
    """A game of Quantum Chess: official notation in, exact probabilities out.

    Args:
        rules: the rule set, `official` (default), `classical`, `checkmate`, ... (as
            `qchess moves --help` lists them).
        position: `startpos`, `fen <FEN>` or a bare FEN, optionally followed by `moves ...`.
        seed: the seed of measurement outcomes (0 when `None`).
        backend: where moves run: `None` for the exact local board, a provider URL
            (`http://127.0.0.1:8080/v0.4`), `ionq`, or `ibm:DEVICE`.
        api_key, target, noise_model, shots, timeout, mitigation: the remote provider's
            settings, as `qchess game --backend ...` takes them.
        force_turn, force_win, force_measure: the official engine's switches (turn order,
            the end of the game on a captured king, forced measurement outcomes).
        ibm_api_key, ibm_crn, ibm_url: IBM Quantum's key, instance and address (else
            `QISKIT_IBM_TOKEN`, `QISKIT_IBM_INSTANCE`).

    Raises:
        ParseError: a rule set, position, backend or option that does not read.
        IllegalMoveError: a move of `position` that the rules do not allow.
        BackendError: the remote provider could not be reached or refused the settings.
    """

    def __init__(
        self,
        rules: str = "official",
        position: str = "startpos",
        seed: int | None = None,
        backend: str | None = None,
        *,
        api_key: str | None = None,
        target: str | None = None,
        noise_model: str | None = None,
        shots: int | None = None,
        timeout: float | None = None,
        mitigation: bool = False,
        force_turn: bool = True,
        force_win: bool = True,
        force_measure: bool = True,
        ibm_api_key: str | None = None,
        ibm_crn: str | None = None,
        ibm_url: str | None = None,
    ) -> None: ...
    @staticmethod
    def from_record(text: str) -> Game:
        """Replays a game record (text), forcing every recorded outcome."""
    def move(self, notation: str) -> Move:
        """Plays a move in official notation (`.m0` / `.m1` force its measurement outcome)."""
    def play(self, moves: str) -> list[Move]:
        """Plays several moves separated by spaces; returns them as played. Under the checkmate rules,
        `mode:classical` / `mode:quantum` between moves switch quantum mode.
        """
    def set_quantum_mode(self, quantum: bool) -> None:
        """Switches quantum mode (checkmate rules: whether pieces may split) without using the turn;
        the change is recorded.
        """
    @property
    def quantum_mode(self) -> bool:
        """Whether quantum mode is on (splits allowed under the checkmate rules)."""
    def undo(self) -> Move:
        """Takes back the last move and returns it."""
    def moves(self) -> list[str]:
        """Every legal move in official notation."""
    @property
    def history(self) -> list[Move]:
        """The moves played so far."""
    def probabilities(self) -> dict[str, float]:
        """Every square's occupancy probability, by square name (`a1` ... `h8`)."""
    def probability_list(self) -> list[float]:
        """The 64 probabilities as a list, a1 = index 0 ... h8 = index 63."""
    def pieces(self) -> dict[str, str]:
        """The piece that may stand on each square (`"P"`, `"n"`, ...), by square name."""
    @property
    def result(self) -> str:
        """`"1-0"`, `"0-1"`, `"1/2-1/2"` or `"*"` while the game goes on."""
    @property
    def reason(self) -> str | None:
        """Why the game ended (`None` while it goes on)."""
    @property
    def fen(self) -> str:
        """The classical position (pieces that may be on a square, counters) as FEN."""
    @property
    def turn(self) -> str:
        """`"white"` or `"black"`."""
    @property
    def state_size(self) -> int:
        """The number of basis states of the quantum state."""
    @property
    def rules(self) -> str:
        """The rule set."""
    @property
    def backend(self) -> str:
        """Where the moves run (`local`, `ionq`, a URL)."""
    def record(self, event: str = "qchess", white: str = "?", black: str = "?") -> str:
        """The game record (tags, moves with every outcome, result) as text."""
    def best_move(self, level: int = 3, movetime: float = 0.1, depth: int | None = None) -> str:
        """The search's choice of move here, in official notation, without playing it: `level` 1 to 6
        (the search depth of `qchess play --white ai:LEVEL`), thinking at most `movetime` seconds,
        or exactly `depth` plies when given.
        """
    def analyse(self, square: str, other: str | None = None) -> dict[str, Any]:
        """Entanglement of `square` with every other square (log negativity, 0 = none) and, with
        `other`, the eight Bell-operator expectations of the pair.
        """
    def circuit(self, format: str = "qasm3") -> str:
        """The whole game's circuit as text: `qasm3` (default), `qasm2` or `ionq-json`. Every mid-game
        measurement is kept as a deferred one; see `sidecar()` for how to read results.
        """
    def sidecar(self) -> dict[str, Any]:
        """How to read the circuit's results as a board: the qubit of each square (`squares`), the
        occupancy of squares without one (`classical`), the deferred measurements' outcomes to post-
        select on (`postselect`) and the measured qubits (`measure`).
        """
    def move_circuits(self, format: str = "qasm3") -> list[tuple[str, dict[str, Any]]]:
        """One circuit per move: the accumulated circuit after it, each standing alone, with its
        sidecar, as `(text, sidecar)` pairs.
        """
    def to_qiskit(self, measurements: bool = True) -> Any:
        """The game's circuit as a `qiskit.QuantumCircuit` (needs qiskit), its sidecar in
        `metadata["qchess"]`; without `measurements` every measurement is left out, ready for a
        statevector simulation.
        """
    def to_cirq(self, measurements: bool = True) -> Any:
        """The game's circuit as a `cirq.Circuit` (needs cirq) over `cirq.LineQubit`s numbered as the
        sidecar numbers qubits; without `measurements` every measurement is left out.
        """
    def _repr_svg_(self) -> str:
        """The board as SVG, each piece with a ring whose arc is its square's probability (Jupyter
        shows it).
        """

class Board:
    """An occupancy board that runs typed moves (`b1^a3c3:SPLIT_JUMP:BASIC`) exactly.

    Args:
        init: the occupied squares: a u64 bitboard (a1 = bit 0), square names separated by
            commas (`"b1,g1"`) or an iterable of names.
        seed: the seed of measurement outcomes (0 when `None`).

    Raises:
        ParseError: a square name that does not read.
    """

    def __init__(self, init: int | str | Iterable[str], seed: int | None = None) -> None: ...
    def do_move(self, text: str) -> int:
        """Runs a typed move (`b1^a3c3:SPLIT_JUMP:BASIC`, `c3d5.m1:JUMP:CAPTURE`); returns its
        measurement outcome (1 when the move went ahead, also when it measured nothing).
        """
    def undo(self) -> None:
        """Takes back the last move."""
    @property
    def history(self) -> list[str]:
        """The typed moves played, each with the outcome it had."""
    def probability_list(self) -> list[float]:
        """The 64 occupancy probabilities, a1 = index 0."""
    def probabilities(self) -> dict[str, float]:
        """Every square's occupancy probability, by square name."""
    def distribution(self) -> list[tuple[int, float]]:
        """Every occupancy (u64 bitboard) with its probability, most likely first."""
    def sample(self, shots: int) -> list[int]:
        """`shots` occupancies (u64 bitboards) drawn from the state."""
    @property
    def state_size(self) -> int:
        """The number of basis states."""
    def circuit(self, format: str = "qasm3") -> str:
        """The board's accumulated circuit as text: `qasm3` (default), `qasm2` or `ionq-json`."""
    def sidecar(self) -> dict[str, Any]:
        """How to read the circuit's results as a board (see `Game.sidecar`)."""
    def _repr_svg_(self) -> str:
        """The board as SVG with probability rings (Jupyter shows it)."""
