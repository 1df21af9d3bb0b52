//! Split and merge moves: jumps, and slides with the arm cases of the reference implementation
//! (each arm's path is reduced to clear, classically blocked, or a list of quantum squares).
//!
//! Every arm case implements the same unitary as a function of the arms' clear flags: both clear
//! gives the split (merge) jump, one clear gives a full iSWAP (iSWAP dagger for a merge) along
//! that arm, none clear gives nothing. The cases differ only in how few ancillas they need.

use qchess_core::Square;

use super::Register;
use super::register::Path;
use crate::ir::{Control, Gate, Qubit, QubitRole};

/// Which way the pieces travel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Direction {
    /// One source, two targets.
    Split,
    /// Two sources, one target.
    Merge,
}

impl Register {
    /// SPLIT_JUMP: `Sq(s, t1)` then `iSW(s, t2)`, so `s -> (i/sqrt2)|t1> + (i/sqrt2)|t2>`. A
    /// classically full source splitting onto two classically empty targets is left certainly
    /// empty and is unhooked.
    pub(super) fn split_jump(&mut self, from: Square, to1: Square, to2: Square) {
        let unhook_source =
            self.is_classical_full(from) && self.is_classical_empty(to1) && self.is_classical_empty(to2);
        let (source, target1, target2) = (self.qubit(from), self.qubit(to1), self.qubit(to2));
        self.iswap(source, target1, 0.5, &[]);
        self.iswap(source, target2, 1.0, &[]);
        if unhook_source {
            self.vacate(from);
        }
    }

    /// MERGE_JUMP: `iSW†(s1, t)` then `Sq†(s2, t)`, the inverse of a split from `t` onto `s2`
    /// and `s1`. Nothing is unhooked.
    pub(super) fn merge_jump(&mut self, from1: Square, from2: Square, to: Square) {
        let (source1, source2, target) = (self.qubit(from1), self.qubit(from2), self.qubit(to));
        self.iswap(source1, target, -1.0, &[]);
        self.iswap(source2, target, -0.5, &[]);
    }

    /// SPLIT_SLIDE: arm 1 is `s -> t1` without `t2`, arm 2 is `s -> t2` without `t1`.
    pub(super) fn split_slide(&mut self, from: Square, to1: Square, to2: Square) {
        let arm1 = self.path(from, to1, Some(to2));
        let arm2 = self.path(from, to2, Some(to1));
        self.arms(Direction::Split, from, (to1, arm1), (to2, arm2));
    }

    /// MERGE_SLIDE: arm 1 is `s1 -> t` without `s2`, arm 2 is `s2 -> t` without `s1`.
    pub(super) fn merge_slide(&mut self, from1: Square, from2: Square, to: Square) {
        let arm1 = self.path(from1, to, Some(from2));
        let arm2 = self.path(from2, to, Some(from1));
        self.arms(Direction::Merge, to, (from1, arm1), (from2, arm2));
    }

    /// Dispatches on the two arms. `hub` is the split's source or the merge's target; `end1`,
    /// `end2` are the split's targets or the merge's sources.
    fn arms(&mut self, direction: Direction, hub: Square, (end1, arm1): (Square, Path), (end2, arm2): (Square, Path)) {
        let full = match direction {
            Direction::Split => 1.0,
            Direction::Merge => -1.0,
        };
        // Merges run iSWAP dagger from the source to the target; splits iSWAP from the source.
        let single = |register: &mut Register, end: Square, path: Option<&[Square]>| {
            let (from, to) = match direction {
                Direction::Split => (hub, end),
                Direction::Merge => (end, hub),
            };
            match path {
                None => register.jump_core(from, to, full),
                Some(path) => register.controlled_slide(from, to, path, full),
            }
        };
        match (arm1, arm2) {
            (Path::Clear, Path::Clear) => match direction {
                Direction::Split => self.split_jump(hub, end1, end2),
                Direction::Merge => self.merge_jump(end1, end2, hub),
            },
            (Path::Blocked, Path::Blocked) => {}
            (Path::Clear, Path::Blocked) => single(self, end1, None),
            (Path::Blocked, Path::Clear) => single(self, end2, None),
            (Path::Quantum(path1), Path::Blocked) => single(self, end1, Some(&path1)),
            (Path::Blocked, Path::Quantum(path2)) => single(self, end2, Some(&path2)),
            (Path::Clear, Path::Quantum(path2)) => {
                let qubits = self.arm_qubits(direction, hub, end1, end2);
                self.zero_many(direction, qubits, &path2);
            }
            (Path::Quantum(path1), Path::Clear) => {
                let qubits = self.arm_qubits(direction, hub, end1, end2);
                self.many_zero(direction, qubits, &path1);
            }
            (Path::Quantum(path1), Path::Quantum(path2)) => {
                let qubits = self.arm_qubits(direction, hub, end1, end2);
                self.many_many(direction, qubits, &path1, &path2);
            }
        }
    }

    /// The three move qubits in the reference's order: `(s, t1, t2)` or `(s1, s2, t)`,
    /// returned as `(hub, end1, end2)`.
    fn arm_qubits(&mut self, direction: Direction, hub: Square, end1: Square, end2: Square) -> ArmQubits {
        match direction {
            Direction::Split => {
                let hub = self.qubit(hub);
                ArmQubits { hub, end1: self.qubit(end1), end2: self.qubit(end2) }
            }
            Direction::Merge => {
                let (end1, end2) = (self.qubit(end1), self.qubit(end2));
                ArmQubits { hub: self.qubit(hub), end1, end2 }
            }
        }
    }

    /// Arm 1 clear, arm 2 through quantum squares: cases (0,1) and (0,>=2).
    fn zero_many(&mut self, direction: Direction, q: ArmQubits, path2: &[Square]) {
        let (flag, computed) = self.arm_flag(path2);
        let (clear2, blocked2) = arm_controls(flag, computed);
        match direction {
            Direction::Split => {
                // Sq(s,t1); C_p-Sq(s,t1); X̄p-iSW(s,t2)
                // (with a flag: Sq(s,t1); X̄a2-Sq(s,t1); C_a2-iSW(s,t2))
                self.iswap(q.hub, q.end1, 0.5, &[]);
                self.iswap(q.hub, q.end1, 0.5, &[blocked2]);
                self.iswap(q.hub, q.end2, 1.0, &[clear2]);
            }
            Direction::Merge => {
                // Sq†(s1,t) twice; then Sq†(s2,t) where arm 2 is clear
                self.iswap(q.end1, q.hub, -1.0, &[]);
                self.iswap(q.end2, q.hub, -0.5, &[clear2]);
            }
        }
        if computed {
            self.uncompute_clear_flag(path2, flag);
        }
    }

    /// Arm 1 through quantum squares, arm 2 clear: cases (1,0) and (>=2,0).
    fn many_zero(&mut self, direction: Direction, q: ArmQubits, path1: &[Square]) {
        let (flag, computed) = self.arm_flag(path1);
        let (clear1, blocked1) = arm_controls(flag, computed);
        match direction {
            Direction::Split => {
                // X̄p-Sq(s,t1) (or C_a1-Sq(s,t1)); iSW(s,t2)
                self.iswap(q.hub, q.end1, 0.5, &[clear1]);
                self.iswap(q.hub, q.end2, 1.0, &[]);
            }
            Direction::Merge => {
                // X̄p-iSW†(s1,t); Sq†(s2,t); C_p-Sq†(s2,t)  (C_a1 / X̄a1 with a flag)
                self.iswap(q.end1, q.hub, -1.0, &[clear1]);
                self.iswap(q.end2, q.hub, -0.5, &[]);
                self.iswap(q.end2, q.hub, -0.5, &[blocked1]);
            }
        }
        if computed {
            self.uncompute_clear_flag(path1, flag);
        }
    }

    /// Both arms through quantum squares: (1,1) on one shared square, otherwise the general
    /// circuit on two clear flags (a single square is flipped with `X` to serve as its flag).
    fn many_many(&mut self, direction: Direction, q: ArmQubits, path1: &[Square], path2: &[Square]) {
        if let ([p1], [p2]) = (path1, path2)
            && p1 == p2
        {
            let clear = self.clear_controls(path1)[0];
            match direction {
                Direction::Split => {
                    self.iswap(q.hub, q.end1, 0.5, &[clear]);
                    self.iswap(q.hub, q.end2, 1.0, &[clear]);
                }
                Direction::Merge => {
                    self.iswap(q.end1, q.hub, -1.0, &[clear]);
                    self.iswap(q.end2, q.hub, -0.5, &[clear]);
                }
            }
            return;
        }
        // Flags of arms with two or more squares are computed first, from the untouched squares.
        let flag1 = (path1.len() > 1).then(|| self.compute_clear_flag(path1, QubitRole::Path));
        let flag2 = (path2.len() > 1).then(|| self.compute_clear_flag(path2, QubitRole::Path));
        let single1 = (path1.len() == 1).then(|| self.qubit(path1[0]));
        let single2 = (path2.len() == 1).then(|| self.qubit(path2[0]));
        let c1 = flag1.or(single1).unwrap_or_else(|| unreachable!("arm 1 has a path"));
        let c2 = flag2.or(single2).unwrap_or_else(|| unreachable!("arm 2 has a path"));
        for qubit in [single1, single2].into_iter().flatten() {
            self.emit(Gate::x(qubit));
        }
        match direction {
            Direction::Split => self.general_split(q, c1, c2),
            Direction::Merge => self.general_merge(q, c1, c2),
        }
        for qubit in [single2, single1].into_iter().flatten() {
            self.emit(Gate::x(qubit));
        }
        if let Some(flag) = flag1 {
            self.uncompute_clear_flag(path1, flag);
        }
        if let Some(flag) = flag2 {
            self.uncompute_clear_flag(path2, flag);
        }
    }

    /// An arm's clear flag: the single square itself (clear = 0, not computed), or a computed
    /// ancilla (clear = 1).
    fn arm_flag(&mut self, path: &[Square]) -> (Qubit, bool) {
        match path {
            [only] => (self.qubit(*only), false),
            _ => (self.compute_clear_flag(path, QubitRole::Path), true),
        }
    }

    /// Cantwell's controlled split `U_sj ⊕ (I⊗U_j) ⊕ (U_j⊗I) ⊕ I` on clear flags `c1`, `c2`.
    fn general_split(&mut self, q: ArmQubits, c1: Qubit, c2: Qubit) {
        let scratch = self.ancilla(QubitRole::Scratch);
        let on = |qubit| Control { qubit, on: true };
        // anc = c1 ∧ c2: the split jump.
        self.emit(Gate::cx(c1, scratch).controlled(c2));
        self.iswap(q.hub, q.end1, 0.5, &[on(scratch)]);
        self.iswap(q.hub, q.end2, 1.0, &[on(scratch)]);
        // anc = c1 ∧ ¬c2: only arm 1.
        self.emit(Gate::cx(c1, scratch));
        self.iswap(q.hub, q.end1, 1.0, &[on(scratch)]);
        self.emit(Gate::cx(c1, scratch));
        // c1 <-> c2, then anc = ¬c1 ∧ c2: only arm 2.
        self.swap(c1, c2);
        self.emit(Gate::cx(c1, scratch));
        self.iswap(q.hub, q.end2, 1.0, &[on(scratch)]);
        // Uncompute.
        self.emit(Gate::cx(c1, scratch));
        self.swap(c1, c2);
        self.emit(Gate::cx(c1, scratch).controlled(c2));
        self.release(scratch);
    }

    /// The controlled merge: the general split's pattern with iSWAP daggers into the target.
    fn general_merge(&mut self, q: ArmQubits, c1: Qubit, c2: Qubit) {
        let scratch = self.ancilla(QubitRole::Scratch);
        let on = |qubit| Control { qubit, on: true };
        // anc = c1 ∧ c2: the merge jump.
        self.emit(Gate::cx(c1, scratch).controlled(c2));
        self.iswap(q.end1, q.hub, -1.0, &[on(scratch)]);
        self.iswap(q.end2, q.hub, -0.5, &[on(scratch)]);
        // anc = ¬c1 ∧ c2: only arm 2.
        self.emit(Gate::cx(c2, scratch));
        self.iswap(q.end2, q.hub, -1.0, &[on(scratch)]);
        self.emit(Gate::cx(c2, scratch));
        // c2 <-> c1, then anc = c1 ∧ ¬c2: only arm 1.
        self.swap(c2, c1);
        self.emit(Gate::cx(c2, scratch));
        self.iswap(q.end1, q.hub, -1.0, &[on(scratch)]);
        // Uncompute.
        self.emit(Gate::cx(c2, scratch));
        self.swap(c2, c1);
        self.emit(Gate::cx(c1, scratch).controlled(c2));
        self.release(scratch);
    }
}

/// The controls active where an arm is clear and where it is blocked: a single path square is
/// clear at 0, a computed flag at 1.
fn arm_controls(flag: Qubit, computed: bool) -> (Control, Control) {
    (Control { qubit: flag, on: computed }, Control { qubit: flag, on: !computed })
}

/// The qubits of a split (`hub` = source, ends = targets) or merge (`hub` = target, ends =
/// sources).
#[derive(Debug, Clone, Copy)]
struct ArmQubits {
    hub: Qubit,
    end1: Qubit,
    end2: Qubit,
}
