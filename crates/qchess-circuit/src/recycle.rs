//! Qubit recycling: a register's accumulated circuit on as few device qubits as it needs.
//!
//! The move compiler never reuses a qubit: every square that re-enters superposition and every
//! ancilla gets a fresh one, so a long game's circuit grows past any device. Most of those
//! qubits are dead long before the end: an uncomputed path flag, the qubit of a square a move
//! left certainly empty. [`recycle`] maps the register's *logical* qubits onto *physical* ones,
//! giving a logical qubit the physical qubit of one that is dead by the time it is first used:
//!
//! * a qubit the register released clean ([`Register::released_clean`]) is |0> in every branch
//!   that survives post-selection, so it is reused as it is: the circuit stays unitary and its
//!   post-selected results are exactly those of the original;
//! * with [`Recycling::Reset`], any other qubit nothing touches again and nothing reads at the
//!   end (a captured piece's record, a square's earlier qubit) is reused after a `reset`. A
//!   reset traces the qubit out, which leaves every other qubit's statistics as they were,
//!   because no later op touches it. Devices without mid-circuit resets (IonQ's JSON circuits)
//!   use [`Recycling::CleanOnly`];
//! * with [`Recycling::MidCircuit`], measured qubits are dead too: the device measures them
//!   where the circuit does, into their classical bits, and post-selection reads those bits
//!   instead of the qubits (see [`Recycled::postselection_bit`]), so a qubit is reused after a
//!   reset once its measurement is done. A game then needs only the qubits of the squares in
//!   superposition, of the move in flight and its ancillas, whatever its history.
//!
//! The qubits read at the end (every square's current qubit, every post-selected qubit, and
//! the qubit a pending move is measuring) stay alive to the end; [`Recycled::physical`] says
//! where each one ended up, so results over physical qubits can be read back as squares.
//!
//! ```
//! use qchess_circuit::compiler::{Register, Step};
//! use qchess_circuit::recycle::{Recycling, recycle};
//! use qchess_core::{Bitboard, Square, TypedMove};
//!
//! let mut register = Register::new(Bitboard::from_square(Square::B1));
//! for mv in ["b1^a3c3:SPLIT_JUMP:BASIC", "a3b5:JUMP:BASIC", "c3d5:JUMP:BASIC"] {
//!     let Step::Done(_) = register.begin(&mv.parse::<TypedMove>()?)? else { unreachable!() };
//! }
//! // b1, a3 and c3 were each left certainly empty: their qubits carry b5 and d5.
//! assert_eq!(register.circuit().num_qubits(), 5);
//! let recycled = recycle(&register, Recycling::CleanOnly);
//! assert_eq!(recycled.circuit.num_qubits(), 3);
//! assert!(recycled.physical(register.square_qubit(Square::B5).expect("quantum")).is_some());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::compiler::Register;
use crate::ir::{Circuit, Gate, Op, PostSelection, Qubit, QubitRole};

/// Which dead qubits may be reused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Recycling {
    /// Only qubits released clean: the circuit stays free of resets (IonQ JSON circuits).
    CleanOnly,
    /// Every dead qubit, after a `reset` unless it was released clean.
    Reset,
    /// As [`Recycling::Reset`], and measured qubits once measured: the device must measure
    /// mid-circuit and report the classical bits.
    MidCircuit,
}

/// A register's circuit on physical qubits: see the [module docs](self).
#[derive(Debug, Clone, PartialEq)]
pub struct Recycled {
    /// The circuit over physical qubits (the same ops, classical bits and post-selections).
    pub circuit: Circuit,
    /// Physical qubit of every logical qubit that is read at the end, by logical index.
    placement: Vec<Option<Qubit>>,
    /// How many logical qubits the register's circuit has.
    logical: usize,
    /// Whether post-selections read classical bits ([`Recycling::MidCircuit`]).
    mid_circuit: bool,
}

impl Recycled {
    /// Where a logical qubit read at the end (a square's current qubit, a post-selected or
    /// pending measured qubit) sits in [`Recycled::circuit`]; `None` for any other qubit.
    pub fn physical(&self, logical: Qubit) -> Option<Qubit> {
        self.placement.get(logical.index()).copied().flatten()
    }

    /// How many qubits the register's circuit would use without recycling.
    pub fn logical_qubits(&self) -> usize {
        self.logical
    }

    /// The bit of a result that holds post-selection `index` (of `circuit.postselect`).
    ///
    /// Results are read with qubit `i` of [`Recycled::circuit`] as bit `i`. A post-selected
    /// qubit that stayed to the end is read there; under [`Recycling::MidCircuit`] the qubit may
    /// carry something else by then, so a runner appends the post-selected classical bits after
    /// the qubits: post-selection `index` is bit `num_qubits + index`.
    pub fn postselection_bit(&self, index: usize) -> Option<u32> {
        let selection = self.circuit.postselect.get(index)?;
        Some(if self.mid_circuit { (self.circuit.num_qubits() + index) as u32 } else { selection.qubit.0 })
    }

    /// Whether post-selections are read from classical bits measured mid-circuit.
    pub fn measures_mid_circuit(&self) -> bool {
        self.mid_circuit
    }
}

/// What a logical qubit does at the end of its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fate {
    /// Read at the end: never freed.
    Read,
    /// Freed after its last use, reusable as it is.
    Clean,
    /// Freed after its last use, reusable after a reset.
    Dirty,
    /// Touched again by a move in progress, or a qubit of a kind not known dead: never freed.
    Kept,
}

/// Maps `register`'s circuit onto as few physical qubits as `recycling` allows: see the
/// [module docs](self).
pub fn recycle(register: &Register, recycling: Recycling) -> Recycled {
    let logical = register.circuit();
    let count = logical.num_qubits();
    let fates = fates(register, recycling);
    let (first_use, last_use) = uses(logical);

    let mut physical = Circuit { clbits: logical.clbits, registers: logical.registers.clone(), ..Circuit::default() };
    let mut map: Vec<Option<Qubit>> = vec![None; count];
    let mut clean: Vec<Qubit> = Vec::new();
    let mut dirty: Vec<Qubit> = Vec::new();
    // Qubits by the op index that first touches them; read qubits no op touches come last.
    let mut starting: Vec<Vec<usize>> = vec![Vec::new(); logical.ops.len() + 1];
    let mut ending: Vec<Vec<usize>> = vec![Vec::new(); logical.ops.len()];
    for qubit in 0..count {
        match first_use[qubit] {
            Some(first) => starting[first].push(qubit),
            None if fates[qubit] == Fate::Read => starting[logical.ops.len()].push(qubit),
            None => {}
        }
        if let (Some(last), Fate::Clean | Fate::Dirty) = (last_use[qubit], fates[qubit]) {
            ending[last].push(qubit);
        }
    }
    for (index, op) in logical.ops.iter().enumerate() {
        for &qubit in &starting[index] {
            let info = logical.qubits[qubit].clone();
            let place = if let Some(reused) = clean.pop() {
                physical.qubits[reused.index()] = info;
                reused
            } else if let Some(reused) = dirty.pop() {
                physical.qubits[reused.index()] = info;
                physical.ops.push(Op::Reset { qubit: reused });
                reused
            } else {
                physical.add_qubit_info(info)
            };
            map[qubit] = Some(place);
        }
        physical.ops.push(remap(op, &map));
        for &qubit in &ending[index] {
            if let Some(place) = map[qubit] {
                if fates[qubit] == Fate::Clean { clean.push(place) } else { dirty.push(place) }
            }
        }
    }
    for &qubit in starting.last().into_iter().flatten() {
        map[qubit] = Some(physical.add_qubit_info(logical.qubits[qubit].clone()));
    }
    physical.postselect = logical
        .postselect
        .iter()
        .map(|p| PostSelection { qubit: map[p.qubit.index()].unwrap_or(p.qubit), ..*p })
        .collect();
    let placement = (0..count).map(|q| if fates[q] == Fate::Read { map[q] } else { None }).collect();
    Recycled { circuit: physical, placement, logical: count, mid_circuit: recycling == Recycling::MidCircuit }
}

/// Each logical qubit's fate at the end of the register's circuit.
fn fates(register: &Register, recycling: Recycling) -> Vec<Fate> {
    let circuit = register.circuit();
    let mut fates: Vec<Fate> = circuit
        .qubits
        .iter()
        .map(|info| match info.role {
            // Unhooked square qubits and finished records are never touched again.
            QubitRole::Square { .. } | QubitRole::Captured | QubitRole::EnPassant
                if recycling != Recycling::CleanOnly =>
            {
                Fate::Dirty
            }
            _ => Fate::Kept,
        })
        .collect();
    for &qubit in register.released_clean() {
        fates[qubit.index()] = Fate::Clean;
    }
    if recycling == Recycling::MidCircuit {
        // Measured where the circuit measures them; their bits carry the post-selection.
        for selection in &circuit.postselect {
            fates[selection.qubit.index()] = Fate::Dirty;
        }
    }
    let postselected = circuit.postselect.iter().map(|p| p.qubit).filter(|_| recycling != Recycling::MidCircuit);
    let read = register
        .square_qubits()
        .map(|(_, qubit)| qubit)
        .chain(postselected)
        .chain(register.pending().map(|request| request.qubit));
    for qubit in read {
        fates[qubit.index()] = Fate::Read;
    }
    fates
}

/// The index of the first and of the last op touching each qubit.
fn uses(circuit: &Circuit) -> (Vec<Option<usize>>, Vec<Option<usize>>) {
    let mut first = vec![None; circuit.num_qubits()];
    let mut last = vec![None; circuit.num_qubits()];
    for (index, op) in circuit.ops.iter().enumerate() {
        let mut touch = |qubit: Qubit| {
            first[qubit.index()].get_or_insert(index);
            last[qubit.index()] = Some(index);
        };
        match op {
            Op::Gate { gate, .. } => gate.qubits().for_each(&mut touch),
            Op::Measure { qubit, .. } | Op::Reset { qubit } => touch(*qubit),
        }
    }
    (first, last)
}

/// `op` on physical qubits.
fn remap(op: &Op, map: &[Option<Qubit>]) -> Op {
    let place = |qubit: Qubit| map[qubit.index()].unwrap_or(qubit);
    match op {
        Op::Gate { gate, condition } => {
            let mut gate: Gate = gate.clone();
            gate.targets.iter_mut().for_each(|q| *q = place(*q));
            gate.controls.iter_mut().for_each(|c| c.qubit = place(c.qubit));
            Op::Gate { gate, condition: *condition }
        }
        Op::Measure { qubit, clbit } => Op::Measure { qubit: place(*qubit), clbit: *clbit },
        Op::Reset { qubit } => Op::Reset { qubit: place(*qubit) },
    }
}
