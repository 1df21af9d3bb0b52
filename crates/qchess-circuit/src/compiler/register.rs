//! The board register: classical occupancy, the qubit of each quantum square, the accumulated
//! circuit, and the helpers every move family compiles with.

use qchess_core::{Bitboard, Square};
use smallvec::SmallVec;

use super::{MeasurementRequest, Pending, Probe};
use crate::ir::{Circuit, Control, Gate, GateKind, Op, Qubit, QubitRole};

/// The quantum side of an occupancy board: see the [module docs](super).
#[derive(Debug, Clone)]
pub struct Register {
    pub(super) circuit: Circuit,
    /// Occupancy of the squares without a qubit; bits of quantum squares are kept 0.
    classical: Bitboard,
    /// Each square's current qubit index, [`NO_QUBIT`] for a classical square (the same form
    /// as in a [`Checkpoint`], so taking one is a copy).
    qubits: [u32; 64],
    generations: [u32; 64],
    /// Qubits no later op touches that are |0> in every branch surviving post-selection, in
    /// the order they were released (see [`Register::released_clean`]).
    released: Vec<Qubit>,
    pub(super) pending: Option<Pending>,
}

/// Everything needed to return a [`Register`] to an earlier point: the circuit only grows, so
/// lengths suffice for it, and each square's generation count follows from the qubits dropped.
/// Boards keep one per move, so it is small: each square's qubit is stored as its index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checkpoint {
    ops: usize,
    qubits: usize,
    clbits: u32,
    registers: usize,
    postselect: usize,
    released: usize,
    classical: Bitboard,
    square_qubits: [u32; 64],
}

/// A square without a qubit, in a [`Checkpoint`].
const NO_QUBIT: u32 = u32::MAX;

/// A path between two squares, reduced to what matters for the circuit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Path {
    /// Every square between is classically empty.
    Clear,
    /// A square between is classically occupied: the path is never clear.
    Blocked,
    /// These squares between are quantum (at least one); the others are classically empty.
    Quantum(SmallVec<[Square; 6]>),
}

impl Register {
    /// A register for a classical occupancy, with an empty circuit.
    pub fn new(occupancy: Bitboard) -> Register {
        Register {
            circuit: Circuit::new(),
            classical: occupancy,
            qubits: [NO_QUBIT; 64],
            generations: [0; 64],
            released: Vec::new(),
            pending: None,
        }
    }

    /// The accumulated circuit: every qubit ever allocated, every op, every post-selection.
    pub fn circuit(&self) -> &Circuit {
        &self.circuit
    }

    /// Occupancy of the classical squares (those without a qubit); quantum squares read 0.
    pub fn classical_occupancy(&self) -> Bitboard {
        self.classical
    }

    /// The squares that currently have a qubit.
    pub fn quantum_squares(&self) -> Bitboard {
        Square::ALL.into_iter().filter(|&sq| self.qubits[usize::from(sq)] != NO_QUBIT).collect()
    }

    /// The current qubit of `square`, if it is quantum.
    pub fn square_qubit(&self, square: Square) -> Option<Qubit> {
        let index = self.qubits[usize::from(square)];
        (index != NO_QUBIT).then_some(Qubit(index))
    }

    /// Every quantum square with its current qubit, in square order.
    pub fn square_qubits(&self) -> impl Iterator<Item = (Square, Qubit)> + '_ {
        Square::ALL.into_iter().filter_map(|sq| self.square_qubit(sq).map(|q| (sq, q)))
    }

    /// Whether `qubit` is the current qubit of a square. Every other qubit of the circuit (an
    /// unhooked square qubit, any ancilla of a finished move) is never touched again.
    pub fn is_square_qubit(&self, qubit: Qubit) -> bool {
        self.circuit
            .qubits
            .get(qubit.index())
            .and_then(|info| info.role.as_square())
            .is_some_and(|sq| self.qubits[usize::from(sq)] == qubit.0)
    }

    /// Qubits released clean: no later op touches them, and in every branch that survives the
    /// circuit's post-selections they are |0> (an uncomputed path flag or scratch ancilla, the
    /// qubit of a square a move left certainly empty). A device may reuse them without a reset.
    pub fn released_clean(&self) -> &[Qubit] {
        &self.released
    }

    /// Where the register stands now, for [`Register::rollback`].
    pub fn checkpoint(&self) -> Checkpoint {
        Checkpoint {
            ops: self.circuit.ops.len(),
            qubits: self.circuit.qubits.len(),
            clbits: self.circuit.clbits,
            registers: self.circuit.registers.len(),
            postselect: self.circuit.postselect.len(),
            released: self.released.len(),
            classical: self.classical,
            square_qubits: self.qubits,
        }
    }

    /// Returns to an earlier checkpoint of this register, dropping everything appended since
    /// (including a pending move).
    pub fn rollback(&mut self, checkpoint: &Checkpoint) {
        // A square's qubits are added with its generations counting up, so its count goes back
        // to the generation of the first of its qubits dropped (the others' counts stand): a
        // pass over the dropped qubits, not over every qubit of the game.
        for info in self.circuit.qubits.get(checkpoint.qubits..).unwrap_or_default() {
            if let QubitRole::Square { square, generation } = info.role {
                let count = &mut self.generations[usize::from(square)];
                *count = (*count).min(generation);
            }
        }
        self.circuit.ops.truncate(checkpoint.ops);
        self.circuit.qubits.truncate(checkpoint.qubits);
        self.circuit.clbits = checkpoint.clbits.min(self.circuit.clbits);
        self.circuit.registers.truncate(checkpoint.registers);
        self.circuit.postselect.truncate(checkpoint.postselect);
        self.released.truncate(checkpoint.released);
        self.classical = checkpoint.classical;
        self.qubits = checkpoint.square_qubits;
        self.pending = None;
    }

    // ---- squares ----

    /// Whether `square` has no qubit and is classically empty.
    pub(super) fn is_classical_empty(&self, square: Square) -> bool {
        self.square_qubit(square).is_none() && !self.classical.contains(square)
    }

    /// Whether `square` has no qubit and is classically full.
    pub(super) fn is_classical_full(&self, square: Square) -> bool {
        self.square_qubit(square).is_none() && self.classical.contains(square)
    }

    /// The classical value of `square`, or `None` if it is quantum.
    pub(super) fn classical_value(&self, square: Square) -> Option<bool> {
        match self.square_qubit(square) {
            Some(_) => None,
            None => Some(self.classical.contains(square)),
        }
    }

    /// The qubit of `square`, allocating the next generation (and placing the piece with `X`
    /// when the square is classically full) if it has none.
    pub(super) fn qubit(&mut self, square: Square) -> Qubit {
        let index = usize::from(square);
        if let Some(qubit) = self.square_qubit(square) {
            return qubit;
        }
        let generation = self.generations[index];
        self.generations[index] += 1;
        let qubit = self.circuit.add_qubit(QubitRole::Square { square, generation });
        if self.classical.contains(square) {
            self.circuit.push_gate(Gate::x(qubit));
            self.classical = self.classical.without(square);
        }
        self.qubits[index] = qubit.0;
        qubit
    }

    /// Makes `square`, whose qubit a simulator found certain to read `value` in every basis
    /// state, classical again: later moves on it compile classically (no gates, no
    /// measurement), and its qubit is left behind for the simulator to drop. For simulators
    /// that know the exact state (a search's board); a circuit compiled this way is only
    /// valid for that state. Ignored while a move waits for its measurement.
    pub fn make_classical(&mut self, square: Square, value: bool) {
        if self.pending.is_none() {
            self.unhook(square, value);
        }
    }

    /// Makes `square` classical with a known `value`; its qubit, if any, is left behind as an
    /// ancilla that nothing touches again.
    pub(super) fn unhook(&mut self, square: Square, value: bool) {
        self.qubits[usize::from(square)] = NO_QUBIT;
        self.classical = self.classical.set(square, value);
    }

    /// Makes `square` classical and empty, releasing its qubit (if any) as clean: the caller
    /// knows it is |0> in every branch that survives post-selection.
    pub(super) fn vacate(&mut self, square: Square) {
        if let Some(qubit) = self.square_qubit(square) {
            self.released.push(qubit);
        }
        self.unhook(square, false);
    }

    /// Releases an ancilla the caller returned to |0>; nothing touches it again.
    pub(super) fn release(&mut self, qubit: Qubit) {
        self.released.push(qubit);
    }

    /// Sets the classical value of a square that has no qubit.
    pub(super) fn set_classical(&mut self, square: Square, value: bool) {
        debug_assert!(self.square_qubit(square).is_none(), "{square} is quantum");
        self.classical = self.classical.set(square, value);
    }

    // ---- paths ----

    /// The squares strictly between `from` and `to` (on one line), without `excluded`, reduced
    /// to what the circuit needs. `from` and `to` must be on a line (checked by the caller).
    pub(super) fn path(&self, from: Square, to: Square, excluded: Option<Square>) -> Path {
        let mut between = from.between(to).unwrap_or(Bitboard::EMPTY);
        if let Some(excluded) = excluded {
            between = between.without(excluded);
        }
        let mut quantum = SmallVec::new();
        for square in between {
            match self.classical_value(square) {
                Some(true) => return Path::Blocked,
                Some(false) => {}
                None => quantum.push(square),
            }
        }
        if quantum.is_empty() { Path::Clear } else { Path::Quantum(quantum) }
    }

    /// Anti-controls on the qubits of the (quantum) path squares: active where all are empty.
    pub(super) fn clear_controls(&mut self, path: &[Square]) -> SmallVec<[Control; 3]> {
        path.iter().map(|&sq| Control { qubit: self.qubit(sq), on: false }).collect()
    }

    /// `clr(P)`: a fresh path ancilla set to 1 exactly where every square of `path` is empty.
    pub(super) fn compute_clear_flag(&mut self, path: &[Square], role: QubitRole) -> Qubit {
        let controls = self.clear_controls(path);
        let flag = self.circuit.add_qubit(role);
        self.circuit.push_gate(Gate::x(flag).with_controls(controls));
        flag
    }

    /// `unclr(P)`: returns a flag made by [`Register::compute_clear_flag`] to |0>.
    pub(super) fn uncompute_clear_flag(&mut self, path: &[Square], flag: Qubit) {
        let controls = self.clear_controls(path);
        self.circuit.push_gate(Gate::x(flag).with_controls(controls));
        self.release(flag);
    }

    /// A fresh ancilla in |0>.
    pub(super) fn ancilla(&mut self, role: QubitRole) -> Qubit {
        self.circuit.add_qubit(role)
    }

    // ---- gates ----

    /// Appends a gate.
    pub(super) fn emit(&mut self, gate: Gate) {
        self.circuit.push_gate(gate);
    }

    /// Appends `iSWAP^power(a, b)` under `controls`.
    pub(super) fn iswap(&mut self, a: Qubit, b: Qubit, power: f64, controls: &[Control]) {
        self.emit(Gate::iswap(a, b, power).with_controls(controls.iter().copied()));
    }

    /// `iSWAP^power` between two squares, run classically when both are classical: on basis
    /// states it exchanges the two occupancies up to a phase that is then global.
    pub(super) fn jump_core(&mut self, a: Square, b: Square, power: f64) {
        if let (Some(va), Some(vb)) = (self.classical_value(a), self.classical_value(b)) {
            self.set_classical(a, vb);
            self.set_classical(b, va);
            return;
        }
        let (qa, qb) = (self.qubit(a), self.qubit(b));
        self.iswap(qa, qb, power, &[]);
    }

    /// `SWAP(a, b)` of two qubits.
    pub(super) fn swap(&mut self, a: Qubit, b: Qubit) {
        self.emit(Gate::two(GateKind::Swap, a, b));
    }

    // ---- measurements ----

    /// Measures whether `square` is occupied; the move proceeds when it reads
    /// `proceed_when_occupied`. A classical square is certain and emits nothing.
    pub(super) fn probe_square(&mut self, square: Square, proceed_when_occupied: bool) -> Probe {
        match self.classical_value(square) {
            Some(occupied) => Probe::Certain(occupied == proceed_when_occupied),
            None => {
                let qubit = self.qubit(square);
                let request = self.measure(qubit, proceed_when_occupied);
                Probe::Pending { request, square: Some(square) }
            }
        }
    }

    /// Measures a condition ancilla; the move proceeds when it reads 1.
    pub(super) fn probe_flag(&mut self, flag: Qubit) -> Probe {
        let request = self.measure(flag, true);
        Probe::Pending { request, square: None }
    }

    fn measure(&mut self, qubit: Qubit, proceed_value: bool) -> MeasurementRequest {
        let clbit = self.circuit.push_measure(qubit);
        debug_assert!(matches!(self.circuit.ops.last(), Some(Op::Measure { .. })));
        MeasurementRequest { qubit, clbit, proceed_value, forced: None }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each square's generation count as it follows from every qubit kept.
    fn counted(register: &Register) -> [u32; 64] {
        let mut generations = [0; 64];
        for info in &register.circuit.qubits {
            if let QubitRole::Square { square, generation } = info.role {
                let count = &mut generations[usize::from(square)];
                *count = (*count).max(generation + 1);
            }
        }
        generations
    }

    /// Qubits allocated and unhooked on a few squares, with rollbacks to nested checkpoints
    /// in between: the generation counts always equal the ones counted from the qubits kept,
    /// so a square's next qubit gets the name it would have had without the rolled-back moves.
    #[test]
    fn a_rollback_gives_each_square_back_its_generation_count() {
        let squares = [Square::A1, Square::B3, Square::H8];
        let mut register = Register::new(Bitboard::EMPTY);
        let mut checkpoints = Vec::new();
        let mut dropping_rollbacks = 0;
        let mut state = 0x2545_f491_4f6c_dd1du64;
        for step in 0..400 {
            // A fixed xorshift stream picks each step.
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let square = squares[(state % 3) as usize];
            match (state >> 8) % 5 {
                0 => checkpoints.push(register.checkpoint()),
                1 => {
                    if let Some(checkpoint) = checkpoints.pop() {
                        dropping_rollbacks += usize::from(register.circuit.qubits.len() > checkpoint.qubits);
                        register.rollback(&checkpoint);
                    }
                }
                2 => register.qubits[usize::from(square)] = NO_QUBIT,
                _ => {
                    register.qubit(square);
                }
            }
            assert_eq!(register.generations, counted(&register), "step {step}");
        }
        assert!(dropping_rollbacks > 10, "only {dropping_rollbacks} rollbacks dropped qubits");
    }
}
