//! OpenQASM 3 statements to a [`Program`]: registers laid out, constants evaluated, operands
//! resolved and broadcast, definitions checked, conditions turned into bit tests.

use std::collections::HashMap;

use qchess_circuit::ir::ClassicalRegister;

use super::parser::{ConstType, Index, ModifierAst, Operand, OperandKind, Stmt, StmtKind};
use crate::parse::Limits;
use crate::parse::source::locate_offset;
use crate::program::expr::{BinaryOp, Expr, ExprKind, UnaryOp, Value, builtin_constant};
use crate::program::{
    BitTest, BodyStatement, Duration, GateCall, GateDefinition, GateLibrary, Instruction, Modifier, Operation, Origin,
    Program, standard_gate,
};

/// A file being elaborated: its name in messages and its text (for lines and columns).
pub(super) struct File<'a> {
    pub(super) display: &'a str,
    pub(super) text: &'a str,
}

/// An error: the file, offset and message.
pub(super) type Failure = (String, usize, String);

/// Resolves an `include` other than `stdgates.inc`: the file's display name and text.
pub(super) type Includer<'a> = dyn FnMut(&str) -> Result<(String, String), String> + 'a;

/// Lexes and parses one file's text (named for errors).
pub(super) type ParseFile = dyn Fn(&str, &str) -> Result<Vec<Stmt>, Failure>;

/// How deep includes may nest.
const MAX_INCLUDE_DEPTH: usize = 16;

#[derive(Debug, Clone, Copy)]
enum Symbol {
    Qubits { start: u32, len: u32 },
    Bits(usize),
    Constant(Value),
    Gate,
}

pub(super) struct Elaborator<'l> {
    program: Program,
    limits: &'l Limits,
    symbols: HashMap<String, Symbol>,
    /// The highest physical qubit named, if the program uses `$n` qubits.
    physical: Option<u32>,
    declared_qubits: bool,
    saw_statement: bool,
}

fn show(name: &str) -> String {
    qchess_core::text::excerpt(name)
}

impl<'l> Elaborator<'l> {
    pub(super) fn new(limits: &'l Limits) -> Elaborator<'l> {
        Elaborator {
            program: Program::default(),
            limits,
            symbols: HashMap::new(),
            physical: None,
            declared_qubits: false,
            saw_statement: false,
        }
    }

    /// The program, once every file is elaborated.
    pub(super) fn finish(mut self) -> Program {
        if let Some(max) = self.physical {
            self.program.qubits = (0..=max).map(|n| format!("${n}")).collect();
        }
        self.program
    }

    /// Elaborates the statements of `file`; `include` reads other files through `includer`.
    pub(super) fn file(
        &mut self,
        file: &File,
        statements: &[Stmt],
        includer: &mut Includer,
        depth: usize,
        parse: &ParseFile,
    ) -> Result<(), Failure> {
        for statement in statements {
            let at = |offset: usize, message: String| (file.display.to_string(), offset, message);
            match &statement.kind {
                StmtKind::Version(version) => {
                    if self.saw_statement || depth > 0 {
                        return Err(at(statement.offset, "`OPENQASM` must be the first statement".into()));
                    }
                    if version != "3" && !version.starts_with("3.") {
                        return Err(at(
                            statement.offset,
                            format!("OpenQASM {version} is not supported; this reads OpenQASM 2.0 and 3"),
                        ));
                    }
                }
                StmtKind::Include(path) => match path.as_str() {
                    "stdgates.inc" => {
                        if self.program.library == GateLibrary::Stdgates {
                            return Err(at(statement.offset, "`stdgates.inc` is included twice".into()));
                        }
                        if let Some(name) = crate::program::STANDARD_GATES
                            .iter()
                            .find(|g| g.in_stdgates && self.symbols.contains_key(g.name))
                            .map(|g| g.name)
                        {
                            return Err(at(
                                statement.offset,
                                format!("`{name}` is already defined, and stdgates.inc defines it too"),
                            ));
                        }
                        self.program.library = GateLibrary::Stdgates;
                    }
                    "qelib1.inc" => {
                        return Err(at(
                            statement.offset,
                            "`qelib1.inc` is OpenQASM 2's library; OpenQASM 3 programs include \"stdgates.inc\"".into(),
                        ));
                    }
                    other => {
                        if depth >= MAX_INCLUDE_DEPTH {
                            return Err(at(
                                statement.offset,
                                format!("includes nest more than {MAX_INCLUDE_DEPTH} deep"),
                            ));
                        }
                        let (display, text) = includer(other).map_err(|reason| {
                            at(statement.offset, format!("cannot include \"{}\": {reason}", show(other)))
                        })?;
                        let statements = parse(&text, &display)?;
                        let included = File { display: &display, text: &text };
                        self.file(&included, &statements, includer, depth + 1, parse)?;
                    }
                },
                _ => self.statement(file, statement, None).map_err(|(offset, message)| at(offset, message))?,
            }
            self.saw_statement = true;
        }
        Ok(())
    }

    fn origin(file: &File, offset: usize) -> Origin {
        let location = locate_offset(file.display, file.text, offset);
        Origin::Source { file: location.file, line: location.line, column: location.column }
    }

    fn declare(&mut self, name: &str, symbol: Symbol, offset: usize) -> Result<(), (usize, String)> {
        if self.symbols.contains_key(name) || builtin_constant(name).is_some() || matches!(name, "U" | "gphase") {
            return Err((offset, format!("`{}` is already defined", show(name))));
        }
        if matches!(symbol, Symbol::Gate) && standard_gate(name, self.program.library).is_some() {
            return Err((offset, format!("`{}` is already defined by stdgates.inc", show(name))));
        }
        self.symbols.insert(name.to_string(), symbol);
        Ok(())
    }

    fn constant(&self, name: &str) -> Option<Value> {
        match self.symbols.get(name) {
            Some(Symbol::Constant(value)) => Some(*value),
            _ => None,
        }
    }

    fn evaluate(&self, expr: &Expr) -> Result<Value, (usize, String)> {
        expr.evaluate(&|name| self.constant(name))
    }

    fn evaluate_size(&self, expr: &Expr, limit: usize, what: &str) -> Result<u32, (usize, String)> {
        match self.evaluate(expr)? {
            Value::Int(n) if n >= 1 && n as u64 <= limit as u64 => Ok(n as u32),
            Value::Int(n) if n >= 1 => Err((expr.offset, format!("{n} {what} are past the limit of {limit}"))),
            other => Err((expr.offset, format!("a register size must be a positive integer, not {}", describe(other)))),
        }
    }

    fn push(
        &mut self,
        file: &File,
        offset: usize,
        operation: Operation,
        condition: &Option<BitTest>,
    ) -> Result<(), (usize, String)> {
        if self.program.body.len() >= self.limits.max_operations {
            return Err((offset, format!("the program has more than {} operations", self.limits.max_operations)));
        }
        self.program.body.push(Instruction {
            operation,
            condition: condition.clone(),
            origin: Self::origin(file, offset),
        });
        Ok(())
    }

    fn statement(&mut self, file: &File, statement: &Stmt, condition: Option<BitTest>) -> Result<(), (usize, String)> {
        let offset = statement.offset;
        match &statement.kind {
            StmtKind::Version(_) | StmtKind::Include(_) => {
                return Err((offset, "`OPENQASM` and `include` must be at the top level".into()));
            }
            StmtKind::QubitDecl { name, size } => {
                if self.physical.is_some() {
                    return Err((offset, "a program that names physical qubits (`$n`) cannot declare qubits".into()));
                }
                let len = match size {
                    Some(size) => self.evaluate_size(size, self.limits.max_qubits, "qubits")?,
                    None => 1,
                };
                let start = self.program.qubits.len() as u32;
                if start as usize + len as usize > self.limits.max_qubits {
                    return Err((
                        offset,
                        format!("`{}` brings the qubit count past the limit of {}", show(name), self.limits.max_qubits),
                    ));
                }
                self.declare(name, Symbol::Qubits { start, len }, offset)?;
                self.declared_qubits = true;
                for i in 0..len {
                    self.program.qubits.push(if size.is_some() { format!("{name}[{i}]") } else { name.clone() });
                }
            }
            StmtKind::BitDecl { name, size } => {
                let len = match size {
                    Some(size) => self.evaluate_size(size, self.limits.max_clbits, "bits")?,
                    None => 1,
                };
                let start = self.program.clbits;
                if start as usize + len as usize > self.limits.max_clbits {
                    return Err((
                        offset,
                        format!("`{}` brings the bit count past the limit of {}", show(name), self.limits.max_clbits),
                    ));
                }
                self.declare(name, Symbol::Bits(self.program.registers.len()), offset)?;
                self.program.registers.push(ClassicalRegister { name: name.clone(), start, len });
                self.program.clbits += len;
            }
            StmtKind::Const { ty, name, value } => {
                let value = match (ty, self.evaluate(value)?) {
                    (ConstType::Int, v @ Value::Int(_)) => v,
                    (ConstType::Int, Value::Float(x)) if x.is_finite() && x.abs() < 9.2e18 => {
                        Value::Int(x.trunc() as i64)
                    }
                    (ConstType::Int, Value::Bool(b)) => Value::Int(i64::from(b)),
                    (ConstType::Float, v) => Value::Float(v.as_f64()),
                    (ConstType::Bool, v) => Value::Bool(v.truthy()),
                    (ConstType::Int, other) => {
                        return Err((value.offset, format!("{} does not fit an `int`", describe(other))));
                    }
                };
                self.declare(name, Symbol::Constant(value), offset)?;
            }
            StmtKind::GateDef { name, params, qubits, body } => {
                if condition.is_some() {
                    return Err((offset, "a gate cannot be defined inside an `if`".into()));
                }
                let definition = self.definition(file, params, qubits, body)?;
                self.declare(name, Symbol::Gate, offset)?;
                self.program.definitions.insert(name.clone(), definition);
            }
            StmtKind::Call { modifiers, name, params, operands } => {
                self.call(file, offset, modifiers, name, params, operands, &condition)?;
            }
            StmtKind::Measure { source, target } => {
                let qubits = self.qubits(source)?;
                let bits = match target {
                    Some(target) => {
                        let bits = self.bits(target)?;
                        if bits.len() != qubits.len() {
                            return Err((
                                offset,
                                format!("measuring {} qubits into {} bits", qubits.len(), bits.len()),
                            ));
                        }
                        bits.into_iter().map(Some).collect()
                    }
                    None => vec![None; qubits.len()],
                };
                for (qubit, clbit) in qubits.into_iter().zip(bits) {
                    self.push(file, offset, Operation::Measure { qubit, clbit }, &condition)?;
                }
            }
            StmtKind::Reset(operand) => {
                for qubit in self.qubits(operand)? {
                    self.push(file, offset, Operation::Reset { qubit }, &condition)?;
                }
            }
            StmtKind::Barrier(operands) => {
                let qubits = self.all_or(operands)?;
                self.push(file, offset, Operation::Barrier { qubits }, &condition)?;
            }
            StmtKind::Delay { seconds, dt, operands } => {
                let qubits = self.all_or(operands)?;
                let duration = if *dt { Duration::Dt(*seconds) } else { Duration::Seconds(*seconds) };
                self.push(file, offset, Operation::Delay { qubits, duration }, &condition)?;
            }
            StmtKind::If { condition: test, then, otherwise } => {
                if condition.is_some() {
                    return Err((offset, "an `if` inside an `if` is not supported".into()));
                }
                let test = self.test(test)?;
                for inner in then {
                    self.statement(file, inner, Some(test.clone()))?;
                }
                let negated = BitTest { equal: !test.equal, ..test };
                for inner in otherwise.iter().flatten() {
                    self.statement(file, inner, Some(negated.clone()))?;
                }
            }
        }
        Ok(())
    }

    /// Every declared qubit when `operands` is empty, else the qubits they name.
    fn all_or(&mut self, operands: &[Operand]) -> Result<Vec<u32>, (usize, String)> {
        if operands.is_empty() {
            return Ok((0..self.program.qubits.len() as u32).collect());
        }
        let mut qubits = Vec::new();
        for operand in operands {
            qubits.extend(self.qubits(operand)?);
        }
        Ok(qubits)
    }

    #[allow(clippy::too_many_arguments)]
    fn call(
        &mut self,
        file: &File,
        offset: usize,
        modifiers: &[ModifierAst],
        name: &str,
        params: &[Expr],
        operands: &[Operand],
        condition: &Option<BitTest>,
    ) -> Result<(), (usize, String)> {
        let modifiers = self.modifiers(modifiers, &|_| None)?;
        let values = params
            .iter()
            .map(|p| p.evaluate_real(&|n| self.constant(n)))
            .collect::<Result<Vec<f64>, (usize, String)>>()?;
        let controls: usize =
            modifiers.iter().map(|m| if let Modifier::Ctrl { count, .. } = m { *count as usize } else { 0 }).sum();
        if let Some((want_params, want_qubits)) = self.shape(name)
            && (values.len() != want_params || operands.len() != controls + want_qubits)
        {
            return Err((
                offset,
                format!(
                    "`{}` takes {want_params} parameters and {} qubits, not {} and {}",
                    show(name),
                    controls + want_qubits,
                    values.len(),
                    operands.len()
                ),
            ));
        }
        if name == "gphase" && operands.is_empty() && modifiers.iter().all(|m| !matches!(m, Modifier::Ctrl { .. })) {
            // A global phase alone changes no result.
            let sign = modifiers.iter().filter(|m| matches!(m, Modifier::Inv)).count() % 2;
            let times: f64 = modifiers.iter().map(|m| if let Modifier::Pow(k) = m { *k } else { 1.0 }).product();
            self.program.global_phase += if sign == 1 { -values[0] } else { values[0] } * times;
            return Ok(());
        }
        let lists = operands.iter().map(|o| self.qubits(o)).collect::<Result<Vec<Vec<u32>>, (usize, String)>>()?;
        let width = lists.iter().map(Vec::len).max().unwrap_or(1);
        if let Some(bad) = lists.iter().zip(operands).find(|(l, _)| l.len() != 1 && l.len() != width) {
            return Err((
                bad.1.offset,
                format!("registers of {} and {width} qubits cannot be broadcast together", bad.0.len()),
            ));
        }
        for i in 0..width.max(1) {
            let qubits: Vec<u32> = lists.iter().map(|l| if l.len() == 1 { l[0] } else { l[i] }).collect();
            if let Some(repeated) = qubits.iter().enumerate().find(|(k, q)| qubits[..*k].contains(q)).map(|(_, q)| *q) {
                return Err((
                    offset,
                    format!("`{}` is applied to qubit {} twice", show(name), self.qubit_name(repeated)),
                ));
            }
            let call =
                GateCall { name: name.to_string(), params: values.clone(), qubits, modifiers: modifiers.clone() };
            self.push(file, offset, Operation::Gate(call), condition)?;
        }
        Ok(())
    }

    fn qubit_name(&self, qubit: u32) -> String {
        if self.physical.is_some() {
            format!("${qubit}")
        } else {
            self.program.qubits.get(qubit as usize).cloned().unwrap_or_default()
        }
    }

    /// Parameters and qubits of a gate known at this point (`None`: unknown, checked later).
    fn shape(&self, name: &str) -> Option<(usize, usize)> {
        match name {
            "U" => Some((3, 1)),
            "gphase" => Some((1, 0)),
            _ => self
                .program
                .definitions
                .get(name)
                .map(|d| (d.params.len(), d.num_qubits))
                .or_else(|| standard_gate(name, self.program.library).map(|g| (g.params, g.qubits))),
        }
    }

    fn modifiers(
        &self,
        modifiers: &[ModifierAst],
        params: &dyn Fn(&str) -> Option<Value>,
    ) -> Result<Vec<Modifier>, (usize, String)> {
        modifiers
            .iter()
            .map(|m| {
                let lookup = |n: &str| {
                    if params(n).is_some() { None } else { self.constant(n) }
                };
                let arg = m.arg.as_ref().map(|e| e.evaluate(&lookup)).transpose()?;
                Ok(match (m.name, arg) {
                    ("inv", _) => Modifier::Inv,
                    ("pow", Some(v)) => Modifier::Pow(v.as_f64()),
                    ("pow", None) => return Err((m.offset, "`pow` needs an exponent: `pow(k) @`".into())),
                    (name, arg) => {
                        let count = match arg {
                            None => 1,
                            Some(Value::Int(n)) if (1..=64).contains(&n) => n as u32,
                            Some(other) => {
                                return Err((
                                    m.offset,
                                    format!("`{name}` takes a control count from 1 to 64, not {}", describe(other)),
                                ));
                            }
                        };
                        Modifier::Ctrl { count, on: name == "ctrl" }
                    }
                })
            })
            .collect()
    }

    fn definition(
        &self,
        file: &File,
        params: &[String],
        qubits: &[(String, usize)],
        body: &[Stmt],
    ) -> Result<GateDefinition, (usize, String)> {
        for (i, (name, offset)) in qubits.iter().enumerate() {
            if qubits[..i].iter().any(|(n, _)| n == name) || params.contains(name) {
                return Err((*offset, format!("`{}` is named twice in the gate's arguments", show(name))));
            }
        }
        let is_param = |n: &str| params.iter().any(|p| p == n).then_some(Value::Float(0.0));
        let mut statements = Vec::new();
        for statement in body {
            let StmtKind::Call { modifiers, name, params: exprs, operands } = &statement.kind else {
                if matches!(statement.kind, StmtKind::Barrier(_)) {
                    continue;
                }
                return Err((statement.offset, "only gate calls may appear in a gate definition".into()));
            };
            let modifiers = self.modifiers(modifiers, &is_param)?;
            let controls: usize =
                modifiers.iter().map(|m| if let Modifier::Ctrl { count, .. } = m { *count as usize } else { 0 }).sum();
            match self.shape(name) {
                Some((want_params, want_qubits))
                    if exprs.len() != want_params || operands.len() != controls + want_qubits =>
                {
                    return Err((
                        statement.offset,
                        format!(
                            "`{}` takes {want_params} parameters and {} qubits, not {} and {}",
                            show(name),
                            controls + want_qubits,
                            exprs.len(),
                            operands.len()
                        ),
                    ));
                }
                Some(_) => {}
                None => {
                    return Err((
                        statement.offset,
                        format!("undefined gate `{}` (gates must be defined before use)", show(name)),
                    ));
                }
            }
            let mut slots = Vec::new();
            for operand in operands {
                let OperandKind::Name(n) = &operand.kind else {
                    return Err((operand.offset, "a gate body names its qubit arguments, without indices".into()));
                };
                let slot = qubits
                    .iter()
                    .position(|(q, _)| q == n)
                    .ok_or_else(|| (operand.offset, format!("`{}` is not a qubit argument of this gate", show(n))))?;
                if slots.contains(&slot) {
                    return Err((operand.offset, format!("`{}` is applied to `{}` twice", show(name), show(n))));
                }
                slots.push(slot);
            }
            let params =
                exprs.iter().map(|e| self.inline(e, params)).collect::<Result<Vec<Expr>, (usize, String)>>()?;
            statements.push(BodyStatement::Call {
                name: name.clone(),
                params,
                qubits: slots,
                modifiers,
                origin: Self::origin(file, statement.offset),
            });
        }
        Ok(GateDefinition {
            params: params.to_vec(),
            num_qubits: qubits.len(),
            body: statements,
            origin: Self::origin(file, body.first().map_or(0, |s| s.offset)),
        })
    }

    /// `expr` with every constant replaced by its value; names must be constants or `params`.
    fn inline(&self, expr: &Expr, params: &[String]) -> Result<Expr, (usize, String)> {
        let kind = match &expr.kind {
            ExprKind::Name(n) if params.contains(n) || builtin_constant(n).is_some() => expr.kind.clone(),
            ExprKind::Name(n) => match self.constant(n) {
                Some(Value::Int(i)) => ExprKind::Int(i),
                Some(Value::Float(x)) => ExprKind::Float(x),
                Some(Value::Bool(b)) => ExprKind::Bool(b),
                None => {
                    return Err((expr.offset, format!("`{}` is not a parameter of this gate or a constant", show(n))));
                }
            },
            ExprKind::Index(n, _) => {
                return Err((expr.offset, format!("`{}[...]` cannot appear in a gate parameter", show(n))));
            }
            ExprKind::Unary(op, inner) => ExprKind::Unary(*op, Box::new(self.inline(inner, params)?)),
            ExprKind::Binary(op, a, b) => {
                ExprKind::Binary(*op, Box::new(self.inline(a, params)?), Box::new(self.inline(b, params)?))
            }
            ExprKind::Call(f, args) => {
                ExprKind::Call(f.clone(), args.iter().map(|a| self.inline(a, params)).collect::<Result<_, _>>()?)
            }
            other => other.clone(),
        };
        Ok(Expr { kind, offset: expr.offset })
    }

    /// The elements of a register an index selects (negative indices count from the end).
    fn select(&self, index: &Index, len: u32, name: &str) -> Result<Vec<u32>, (usize, String)> {
        let resolve = |expr: &Expr| -> Result<u32, (usize, String)> {
            match self.evaluate(expr)? {
                Value::Int(i) if i >= 0 && i < i64::from(len) => Ok(i as u32),
                Value::Int(i) if i < 0 && -i <= i64::from(len) => Ok((i64::from(len) + i) as u32),
                Value::Int(i) => {
                    Err((expr.offset, format!("index {i} is out of range for `{}` of size {len}", show(name))))
                }
                other => Err((expr.offset, format!("an index must be an integer, not {}", describe(other)))),
            }
        };
        match index {
            Index::Single(expr) => Ok(vec![resolve(expr)?]),
            Index::Set(items) => items.iter().map(resolve).collect(),
            Index::Range { start, step, end } => {
                let first = start.as_ref().map(resolve).transpose()?.unwrap_or(0);
                let last = end.as_ref().map(resolve).transpose()?.unwrap_or(len - 1);
                let step = match step.as_ref().map(|s| self.evaluate(s)).transpose()? {
                    None => 1,
                    Some(Value::Int(s)) if s != 0 => s,
                    Some(other) => {
                        let at = step.as_ref().map_or(0, |s| s.offset);
                        return Err((at, format!("a range step must be a non-zero integer, not {}", describe(other))));
                    }
                };
                let mut out = Vec::new();
                let mut i = i64::from(first);
                while (step > 0 && i <= i64::from(last)) || (step < 0 && i >= i64::from(last)) {
                    out.push(i as u32);
                    i += step;
                }
                Ok(out)
            }
        }
    }

    fn qubits(&mut self, operand: &Operand) -> Result<Vec<u32>, (usize, String)> {
        let (name, index) = match &operand.kind {
            OperandKind::Physical(n) => {
                if self.declared_qubits {
                    return Err((
                        operand.offset,
                        "a program that declares qubits cannot also name physical qubits (`$n`)".into(),
                    ));
                }
                if *n as usize >= self.limits.max_qubits {
                    return Err((
                        operand.offset,
                        format!("physical qubit ${n} is past the limit of {} qubits", self.limits.max_qubits),
                    ));
                }
                self.physical = Some(self.physical.map_or(*n, |m| m.max(*n)));
                return Ok(vec![*n]);
            }
            OperandKind::Name(name) => (name, None),
            OperandKind::Indexed(name, index) => (name, Some(index)),
        };
        let Some(Symbol::Qubits { start, len }) = self.symbols.get(name.as_str()).copied() else {
            let what =
                if self.symbols.contains_key(name.as_str()) { "is not a qubit register" } else { "is not declared" };
            return Err((operand.offset, format!("`{}` {what}", show(name))));
        };
        match index {
            None => Ok((start..start + len).collect()),
            Some(index) => Ok(self.select(index, len, name)?.into_iter().map(|i| start + i).collect()),
        }
    }

    fn bits(&self, operand: &Operand) -> Result<Vec<u32>, (usize, String)> {
        let (name, index) = match &operand.kind {
            OperandKind::Physical(n) => return Err((operand.offset, format!("`${n}` is a qubit, not a bit"))),
            OperandKind::Name(name) => (name, None),
            OperandKind::Indexed(name, index) => (name, Some(index)),
        };
        let Some(Symbol::Bits(register)) = self.symbols.get(name.as_str()).copied() else {
            let what =
                if self.symbols.contains_key(name.as_str()) { "is not a bit register" } else { "is not declared" };
            return Err((operand.offset, format!("`{}` {what}", show(name))));
        };
        let register = &self.program.registers[register];
        match index {
            None => Ok((register.start..register.start + register.len).collect()),
            Some(index) => {
                Ok(self.select(index, register.len, name)?.into_iter().map(|i| register.start + i).collect())
            }
        }
    }

    /// The bits an expression names, if it names a register or one bit of one.
    fn named_bits(&self, expr: &Expr) -> Result<Option<Vec<u32>>, (usize, String)> {
        let (name, index) = match &expr.kind {
            ExprKind::Name(name) => (name, None),
            ExprKind::Index(name, index) => (name, Some(index)),
            _ => return Ok(None),
        };
        let Some(Symbol::Bits(_)) = self.symbols.get(name.as_str()) else {
            return Ok(None);
        };
        let operand = Operand {
            kind: match index {
                None => OperandKind::Name(name.clone()),
                Some(index) => OperandKind::Indexed(name.clone(), Index::Single((**index).clone())),
            },
            offset: expr.offset,
        };
        self.bits(&operand).map(Some)
    }

    /// The bit test an `if` condition means.
    fn test(&self, condition: &Expr) -> Result<BitTest, (usize, String)> {
        let unsupported = || {
            (
                condition.offset,
                "a condition must compare bits with a constant (`c == 3`, `c[0]`, `!c[0]`, `c[1] != 0`)".to_string(),
            )
        };
        let (bits, value, equal) = match &condition.kind {
            ExprKind::Binary(op @ (BinaryOp::Eq | BinaryOp::Ne), left, right) => {
                let (bits, constant) = match (self.named_bits(left)?, self.named_bits(right)?) {
                    (Some(bits), None) => (bits, right),
                    (None, Some(bits)) => (bits, left),
                    _ => return Err(unsupported()),
                };
                let value = match self.evaluate(constant)? {
                    Value::Int(i) if i >= 0 => i as u64,
                    Value::Bool(b) => u64::from(b),
                    other => {
                        return Err((
                            constant.offset,
                            format!("bits compare with a non-negative integer, not {}", describe(other)),
                        ));
                    }
                };
                (bits, value, *op == BinaryOp::Eq)
            }
            ExprKind::Unary(UnaryOp::Not, inner) => match self.named_bits(inner)? {
                Some(bits) if bits.len() == 1 => (bits, 0, true),
                _ => return Err(unsupported()),
            },
            _ => match self.named_bits(condition)? {
                Some(bits) if bits.len() == 1 => (bits, 1, true),
                _ => return Err(unsupported()),
            },
        };
        if bits.len() > 64 {
            return Err((condition.offset, "conditions on more than 64 bits are not supported".into()));
        }
        Ok(BitTest { bits, value, equal })
    }
}

fn describe(value: Value) -> String {
    match value {
        Value::Int(i) => i.to_string(),
        Value::Float(x) => format!("{x}"),
        Value::Bool(b) => b.to_string(),
    }
}
