//! OpenQASM 3 statements to a [`Program`]: registers laid out, constants evaluated, operands
//! resolved and broadcast, definitions checked, conditions turned into bit tests.

use std::collections::HashMap;

use qchess_circuit::ir::ClassicalRegister;

use super::parser::{ConstType, ModifierAst, Operand, Stmt, StmtKind};
use crate::parse::Limits;
use crate::parse::source::locate_offset;
use crate::program::expr::{Expr, Value, builtin_constant};
use crate::program::{
    BitTest, Duration, GateCall, GateLibrary, Instruction, Modifier, Operation, Origin, Program, standard_gate,
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
pub(super) enum Symbol {
    Qubits { start: u32, len: u32 },
    Bits(usize),
    Constant(Value),
    Gate,
}

pub(super) struct Elaborator<'l> {
    pub(super) program: Program,
    pub(super) limits: &'l Limits,
    pub(super) symbols: HashMap<String, Symbol>,
    /// The highest physical qubit named, if the program uses `$n` qubits.
    pub(super) physical: Option<u32>,
    pub(super) declared_qubits: bool,
    saw_statement: bool,
}

pub(super) fn show(name: &str) -> String {
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

    pub(super) fn origin(file: &File, offset: usize) -> Origin {
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

    pub(super) fn constant(&self, name: &str) -> Option<Value> {
        match self.symbols.get(name) {
            Some(Symbol::Constant(value)) => Some(*value),
            _ => None,
        }
    }

    pub(super) fn evaluate(&self, expr: &Expr) -> Result<Value, (usize, String)> {
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
    pub(super) fn shape(&self, name: &str) -> Option<(usize, usize)> {
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
}

pub(super) fn describe(value: Value) -> String {
    match value {
        Value::Int(i) => i.to_string(),
        Value::Float(x) => format!("{x}"),
        Value::Bool(b) => b.to_string(),
    }
}
