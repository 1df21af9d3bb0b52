//! The OpenQASM 3 syntax tree the parser builds: statements, types and expressions, each with
//! the byte offset where it starts in its file. Nothing here is checked yet; the checker
//! ([`machine`](crate::machine)) resolves names, types and constants.

pub(crate) use crate::classical::{BinaryOp, UnaryOp};

/// A time unit of a duration literal.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum TimeUnit {
    /// Seconds divided by the number given (`1e9` for nanoseconds).
    Seconds(f64),
    /// The device's sample time.
    Dt,
}

/// What an index selects: one element, a range `a:b` / `a:s:b`, or a set `{a, b}`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum IndexItem {
    Single(Expr),
    Range { start: Option<Expr>, step: Option<Expr>, end: Option<Expr> },
    Set(Vec<Expr>),
}

/// An expression (qubit operands are expressions too) and where it starts.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Expr {
    pub(crate) kind: ExprKind,
    pub(crate) offset: usize,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum ExprKind {
    Int(u64),
    Float(f64),
    Imag(f64),
    Bool(bool),
    /// `"0101"`: the digits as written, most significant first.
    BitString(String),
    Duration(f64, TimeUnit),
    Name(String),
    /// A physical qubit `$n`.
    Physical(u32),
    /// `a[...]`: one bracket, its comma-separated items (`a[i, j]` indexes two dimensions).
    Index(Box<Expr>, Vec<IndexItem>),
    Unary(UnaryOp, Box<Expr>),
    Binary(BinaryOp, Box<Expr>, Box<Expr>),
    /// `name(args)`: a built-in function, a subroutine or an `extern`.
    Call(String, Vec<Expr>),
    /// `type(value)`.
    Cast(Box<TypeSyntax>, Box<Expr>),
    /// `a ++ b`.
    Concat(Box<Expr>, Box<Expr>),
    /// `{a, b, c}`: an array initialiser or a set.
    List(Vec<Expr>),
    /// `[start : step : end]` as a `for` loop's values.
    Range {
        start: Option<Box<Expr>>,
        step: Option<Box<Expr>>,
        end: Option<Box<Expr>>,
    },
    /// `measure q` where a value is expected.
    Measure(Box<Expr>),
    /// `durationof({ ... })`.
    DurationOf(Vec<Stmt>),
}

/// The scalar kinds of OpenQASM 3's classical types.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ScalarKind {
    Bit,
    Bool,
    Int,
    UInt,
    Float,
    Angle,
    Complex,
    Duration,
    Stretch,
}

/// How an array parameter gives its dimensions.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum ArrayDims {
    /// `array[T, 2, 3]`.
    Sizes(Vec<Expr>),
    /// `array[T, #dim = 2]`.
    Count(Expr),
}

/// A type as written.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum TypeSyntax {
    /// `int`, `int[8]`, `bit[3]`, `complex[float[64]]` (the component in `component`), ...
    Scalar { kind: ScalarKind, width: Option<Expr>, component: Option<Box<TypeSyntax>> },
    /// `array[T, d1, d2]`.
    Array { base: Box<TypeSyntax>, dims: Vec<Expr> },
    /// `readonly array[T, ...]` / `mutable array[T, ...]` (subroutine parameters).
    ArrayRef { mutable: bool, base: Box<TypeSyntax>, dims: ArrayDims },
    /// `qubit`, `qubit[n]` (subroutine parameters).
    Qubit { size: Option<Expr> },
}

/// Whether a classical declaration is `const`, `input` or `output`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Modifier {
    Plain,
    Const,
    Input,
    Output,
}

/// A modifier before `@` in a gate call.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct GateModifier {
    pub(crate) name: &'static str,
    pub(crate) arg: Option<Expr>,
    pub(crate) offset: usize,
}

/// A subroutine parameter.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Param {
    pub(crate) ty: TypeSyntax,
    pub(crate) name: String,
    pub(crate) offset: usize,
}

/// A `case` of a `switch`: its labels, body and place.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Case {
    pub(crate) labels: Vec<Expr>,
    pub(crate) body: Vec<Stmt>,
    pub(crate) offset: usize,
}

/// A statement and where it starts.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Stmt {
    pub(crate) kind: StmtKind,
    pub(crate) offset: usize,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum StmtKind {
    Version(String),
    Include(String),
    /// `qubit[n] q;` or `qreg q[n];`.
    QubitDecl {
        name: String,
        size: Option<Expr>,
    },
    /// Every classical declaration (`bit[2] c;`, `creg c[2];`, `const int n = 3;`, `input float t;`).
    Declare {
        modifier: Modifier,
        ty: TypeSyntax,
        name: String,
        init: Option<Expr>,
    },
    /// `let name = value;`.
    Alias {
        name: String,
        value: Expr,
    },
    GateDef {
        name: String,
        params: Vec<(String, usize)>,
        qubits: Vec<(String, usize)>,
        body: Vec<Stmt>,
    },
    Def {
        name: String,
        params: Vec<Param>,
        returns: Option<TypeSyntax>,
        body: Vec<Stmt>,
    },
    Extern {
        name: String,
        params: Vec<TypeSyntax>,
        returns: Option<TypeSyntax>,
    },
    /// `[modifiers @] name[(params)] operands;`: a gate call, or a subroutine called like one.
    Call {
        modifiers: Vec<GateModifier>,
        name: String,
        params: Vec<Expr>,
        operands: Vec<Expr>,
    },
    /// `target = value;` or `target op= value;`.
    Assign {
        target: Expr,
        op: Option<BinaryOp>,
        value: Expr,
    },
    /// `measure q -> c;` or a bare `measure q;`.
    Measure {
        source: Expr,
        target: Option<Expr>,
    },
    Reset(Expr),
    Barrier(Vec<Expr>),
    Delay {
        duration: Expr,
        operands: Vec<Expr>,
    },
    Nop(Vec<Expr>),
    If {
        condition: Expr,
        then: Vec<Stmt>,
        otherwise: Option<Vec<Stmt>>,
    },
    For {
        ty: TypeSyntax,
        var: String,
        values: Expr,
        body: Vec<Stmt>,
    },
    While {
        condition: Expr,
        body: Vec<Stmt>,
    },
    Switch {
        value: Expr,
        cases: Vec<Case>,
        default: Option<Vec<Stmt>>,
    },
    Box {
        duration: Option<Expr>,
        body: Vec<Stmt>,
    },
    Block(Vec<Stmt>),
    Break,
    Continue,
    End,
    Return(Option<Expr>),
}
