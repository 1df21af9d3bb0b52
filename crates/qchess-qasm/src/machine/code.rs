//! The instructions a checked program compiles to: structured control flow flattened into
//! jumps, declarations into initialisations, calls into frames. Expressions stay trees
//! ([`classical::Expr`](crate::classical::Expr)); a call or `measure` inside one is hoisted
//! into an instruction of its own before it.

use std::sync::Arc;

use crate::classical::{Expr, Selector, Slot, Type};
use crate::parse::source::locate_offset;
use crate::program::{Origin, Program};

/// One step of a place: elements of an array (one selector per dimension) or bits of a value.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum PlaceStep {
    Elements(Vec<Selector>),
    /// Bits of a value of the given type.
    Bits(Box<Selector>, Type),
}

/// Something that can be assigned: a variable, or part of one.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Place {
    pub(crate) slot: Slot,
    /// The variable's type.
    pub(crate) root: Type,
    pub(crate) path: Vec<PlaceStep>,
    /// The type of the part assigned.
    pub(crate) ty: Type,
    /// The variable's name, for messages.
    pub(crate) what: Arc<str>,
}

/// A gate modifier whose argument is evaluated when the gate runs.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum ModifierCode {
    Inv,
    Pow(Expr),
    Ctrl { count: u32, on: bool },
}

/// A gate call with its parts still to evaluate.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct GateCode {
    pub(crate) name: String,
    pub(crate) modifiers: Vec<ModifierCode>,
    pub(crate) params: Vec<Expr>,
    pub(crate) operands: Vec<Expr>,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Instr {
    /// A declaration reached: the variable takes `value` (already of its type).
    Init {
        slot: Slot,
        value: Expr,
    },
    /// `place = value` (the value already of the place's type).
    Assign {
        place: Place,
        value: Expr,
    },
    Gate(GateCode),
    /// Measures each qubit into the matching bit of `target` (broadcast), or discards.
    Measure {
        qubits: Expr,
        target: Option<Place>,
    },
    Reset(Expr),
    Barrier(Vec<Expr>),
    /// Waits; no operands means every qubit. The duration is checked when it runs.
    Delay {
        duration: Expr,
        qubits: Vec<Expr>,
    },
    /// A `box[duration]`: the duration is checked when it runs.
    BoxStart(Expr),
    Jump(usize),
    /// Goes on when `condition` holds, else jumps to `otherwise`. For an `if`, the branch
    /// taken ends at `end` (the `then` part ends with a jump there when there is an `else`).
    Branch {
        condition: Expr,
        otherwise: usize,
        end: usize,
    },
    /// A `for` loop starts: its values are kept in `store`, and `index` counts from 0.
    ForStart {
        values: Expr,
        store: Slot,
        index: Slot,
    },
    /// The next value into `var` (converted from `item` to its type), or on to `exit`.
    ForNext {
        store: Slot,
        index: Slot,
        var: Slot,
        var_ty: Type,
        item: Type,
        exit: usize,
    },
    Switch {
        value: Expr,
        cases: Vec<(i128, usize)>,
        default: usize,
    },
    /// Calls subroutine `function` with its arguments (each of its parameter's type).
    Call {
        function: usize,
        args: Vec<Expr>,
        result: Option<Slot>,
    },
    Return(Option<Expr>),
    End,
}

/// A subroutine: where its code starts, how many variables its frame holds, its name.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Function {
    pub(crate) name: String,
    pub(crate) entry: usize,
    pub(crate) frame: usize,
    pub(crate) params: Vec<Type>,
    pub(crate) returns: Option<Type>,
}

/// A global bit register laid out as classical bits of the static circuit.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Register {
    pub(crate) slot: u32,
    pub(crate) start: u32,
    pub(crate) len: u32,
}

/// The compiled program.
#[derive(Debug, Clone, Default)]
pub(crate) struct Code {
    pub(crate) instrs: Vec<Instr>,
    /// Per instruction: the file (index into `files`) and byte offset it came from.
    pub(crate) origins: Vec<(usize, usize)>,
    /// Every file read: its name and text.
    pub(crate) files: Vec<(String, String)>,
    pub(crate) functions: Vec<Function>,
    /// Variables of the global frame.
    pub(crate) globals: usize,
    /// Qubit names, gate definitions and library, the bit registers and global phase.
    pub(crate) shell: Program,
    /// Global bit registers, in declaration order (the static circuit's classical bits).
    pub(crate) registers: Vec<Register>,
    /// What a shot's result reads: global variables and their bit widths, low bits first.
    pub(crate) outputs: Vec<(u32, u32)>,
    /// Whether the program declares `output`s (else every global bit register is one).
    pub(crate) declared_outputs: bool,
    /// The qubits named by `$n` (then qubit `n` is `$n`).
    pub(crate) physical: bool,
}

impl Code {
    /// Where instruction `pc` came from, with `offset` (a part of it) if given.
    pub(crate) fn origin(&self, pc: usize, offset: Option<usize>) -> Origin {
        let Some(&(file, at)) = self.origins.get(pc) else {
            return Origin::Item("the end of the program".into());
        };
        let (name, text) = &self.files[file];
        let location = locate_offset(name, text, offset.unwrap_or(at));
        Origin::Source { file: location.file, line: location.line, column: location.column }
    }
}
