//! Type-checked OpenQASM 2 AST to IR: registers flattened in declaration order, gates
//! expanded (or mapped directly when builtin), broadcasts unrolled, parameters evaluated in
//! `f64`.

use std::collections::HashMap;
use std::f64::consts::PI;

use openqasm::ast::{Decl, Expr, FileSpan, Program, Reg, Span, Stmt, Symbol};
use qchess_circuit::ir::{Circuit, Condition, Gate, GateKind, Op, Qubit, QubitRole};

use super::Limits;
use super::builtin::builtin_gates;
use super::source::SourceMap;
use qchess_core::text::excerpt;

/// A message and the place it refers to.
pub(crate) type Failure = (String, FileSpan);

/// How deep gate definitions may call each other.
const MAX_CALL_DEPTH: usize = 256;

struct Definition<'p> {
    params: &'p [Span<Symbol>],
    args: &'p [Span<Symbol>],
    body: Option<&'p [Span<Stmt>]>,
    /// Defined by `qelib1.inc` or the extension declarations: mapped directly when possible.
    builtin: bool,
}

struct Translator<'p> {
    sources: &'p SourceMap,
    cache: &'p openqasm::SourceCache,
    limits: &'p Limits,
    circuit: Circuit,
    qregs: HashMap<Symbol, (u32, u32)>,
    cregs: HashMap<Symbol, usize>,
    definitions: HashMap<Symbol, Definition<'p>>,
}

/// Translates a type-checked program; `is_builtin_file` tells which definitions are builtin.
pub(crate) fn translate(
    program: &Program,
    sources: &SourceMap,
    cache: &openqasm::SourceCache,
    limits: &Limits,
    is_builtin_file: &dyn Fn(FileSpan) -> bool,
) -> Result<Circuit, Failure> {
    let mut translator = Translator {
        sources,
        cache,
        limits,
        circuit: Circuit::new(),
        qregs: HashMap::new(),
        cregs: HashMap::new(),
        definitions: HashMap::new(),
    };
    for decl in &program.decls {
        if let Decl::Def { name, params, args, body } = &*decl.inner {
            translator.definitions.insert(
                name.inner.to_symbol(),
                Definition { params, args, body: body.as_deref(), builtin: is_builtin_file(decl.span) },
            );
        }
    }
    for decl in &program.decls {
        match &*decl.inner {
            Decl::QReg { reg } => translator.declare_qreg(reg)?,
            Decl::CReg { reg } => translator.declare_creg(reg)?,
            Decl::Stmt(stmt) => translator.statement(stmt, None)?,
            Decl::Include { .. } | Decl::Def { .. } => {}
        }
    }
    Ok(translator.circuit)
}

impl<'p> Translator<'p> {
    fn declare_qreg(&mut self, reg: &Span<Reg>) -> Result<(), Failure> {
        let size = reg.inner.index.unwrap_or(1);
        let first = self.circuit.num_qubits();
        if first as u64 + size > self.limits.max_qubits as u64 {
            return Err((
                format!(
                    "register `{}` brings the qubit count past the limit of {}",
                    reg.inner.name, self.limits.max_qubits
                ),
                reg.span,
            ));
        }
        for index in 0..size {
            self.circuit.add_named_qubit(QubitRole::General, format!("{}[{index}]", reg.inner.name));
        }
        self.qregs.insert(reg.inner.name.clone(), (first as u32, size as u32));
        Ok(())
    }

    fn declare_creg(&mut self, reg: &Span<Reg>) -> Result<(), Failure> {
        let size = reg.inner.index.unwrap_or(1);
        if u64::from(self.circuit.clbits) + size > self.limits.max_clbits as u64 {
            return Err((
                format!(
                    "register `{}` brings the classical bit count past the limit of {}",
                    reg.inner.name, self.limits.max_clbits
                ),
                reg.span,
            ));
        }
        let index = self.circuit.add_register(reg.inner.name.as_str(), size as u32);
        self.cregs.insert(reg.inner.name.clone(), index);
        Ok(())
    }

    /// The qubits an operand names: one, or a whole register.
    fn qubits(&self, reg: &Span<Reg>) -> Result<Vec<Qubit>, Failure> {
        let &(first, size) = self
            .qregs
            .get(&reg.inner.name)
            .ok_or_else(|| (format!("undefined quantum register `{}`", reg.inner.name), reg.span))?;
        match reg.inner.index {
            Some(index) if index < u64::from(size) => Ok(vec![Qubit(first + index as u32)]),
            Some(index) => Err((
                format!("index {index} is out of range for register `{}` of size {size}", reg.inner.name),
                reg.span,
            )),
            None => Ok((first..first + size).map(Qubit).collect()),
        }
    }

    /// The classical bits an operand names.
    fn bits(&self, reg: &Span<Reg>) -> Result<Vec<u32>, Failure> {
        let register = self
            .cregs
            .get(&reg.inner.name)
            .map(|&i| &self.circuit.registers[i])
            .ok_or_else(|| (format!("undefined classical register `{}`", reg.inner.name), reg.span))?;
        match reg.inner.index {
            Some(index) if index < u64::from(register.len) => Ok(vec![register.start + index as u32]),
            Some(index) => Err((
                format!("index {index} is out of range for register `{}` of size {}", reg.inner.name, register.len),
                reg.span,
            )),
            None => Ok((register.start..register.start + register.len).collect()),
        }
    }

    fn push(&mut self, op: Op, at: FileSpan) -> Result<(), Failure> {
        if self.circuit.ops.len() >= self.limits.max_operations {
            return Err((format!("the circuit expands to more than {} operations", self.limits.max_operations), at));
        }
        self.circuit.ops.push(op);
        Ok(())
    }

    fn push_gate(&mut self, gate: Gate, condition: Option<Condition>, at: FileSpan) -> Result<(), Failure> {
        self.push(Op::Gate { gate, condition }, at)
    }

    /// Unrolls a broadcast: operand lists of length 1 repeat, longer ones advance together.
    fn broadcast(&self, lists: &[Vec<Qubit>], at: FileSpan, name: &str) -> Result<Vec<Vec<Qubit>>, Failure> {
        let width = lists.iter().map(Vec::len).max().unwrap_or(1).max(1);
        let mut rows = Vec::with_capacity(width);
        for i in 0..width {
            let row: Vec<Qubit> =
                lists.iter().map(|list| if list.len() == 1 { list[0] } else { list[i.min(list.len() - 1)] }).collect();
            if let Some(repeated) = row.iter().enumerate().find(|(k, q)| row[..*k].contains(q)).map(|(_, q)| *q) {
                let qubit = self.circuit.qubits[repeated.index()].name();
                return Err((format!("`{}` is applied to {qubit} twice", excerpt(name)), at));
            }
            rows.push(row);
        }
        Ok(rows)
    }

    fn statement(&mut self, stmt: &Span<Stmt>, condition: Option<Condition>) -> Result<(), Failure> {
        let at = stmt.span;
        match &*stmt.inner {
            Stmt::U { theta, phi, lambda, reg } => {
                let env = HashMap::new();
                let values = [self.eval(theta, &env)?, self.eval(phi, &env)?, self.eval(lambda, &env)?];
                for qubit in self.qubits(reg)? {
                    self.push_gate(Gate::one(GateKind::U(values[0], values[1], values[2]), qubit), condition, at)?;
                }
            }
            Stmt::CX { copy, xor } => {
                let lists = [self.qubits(copy)?, self.qubits(xor)?];
                for row in self.broadcast(&lists, at, "CX")? {
                    self.push_gate(Gate::cx(row[0], row[1]), condition, at)?;
                }
            }
            Stmt::Measure { from, to } => {
                if condition.is_some() {
                    return Err(("a conditional measurement cannot be simulated".into(), at));
                }
                let (qubits, bits) = (self.qubits(from)?, self.bits(to)?);
                if qubits.len() != bits.len() {
                    return Err((format!("measuring {} qubits into {} bits", qubits.len(), bits.len()), at));
                }
                for (qubit, bit) in qubits.into_iter().zip(bits) {
                    self.push(Op::Measure { qubit, clbit: qchess_circuit::ir::Clbit(bit) }, at)?;
                }
            }
            Stmt::Reset { reg } => {
                if condition.is_some() {
                    return Err(("a conditional reset cannot be simulated".into(), at));
                }
                for qubit in self.qubits(reg)? {
                    self.push(Op::Reset { qubit }, at)?;
                }
            }
            Stmt::Barrier { .. } => {}
            Stmt::Gate { name, params, args } => {
                let env = HashMap::new();
                let values = params.iter().map(|p| self.eval(p, &env)).collect::<Result<Vec<f64>, Failure>>()?;
                let lists = args.iter().map(|a| self.qubits(a)).collect::<Result<Vec<_>, Failure>>()?;
                for row in self.broadcast(&lists, at, name.inner.as_str())? {
                    self.apply(&name.inner, &values, &row, condition, at, 0)?;
                }
            }
            Stmt::Conditional { reg, val, then } => {
                if condition.is_some() {
                    return Err(("an `if` inside an `if` is not OpenQASM 2".into(), at));
                }
                if reg.inner.index.is_some() {
                    return Err(("a condition compares a whole classical register, not one bit".into(), reg.span));
                }
                let register = *self
                    .cregs
                    .get(&reg.inner.name)
                    .ok_or_else(|| (format!("undefined classical register `{}`", reg.inner.name), reg.span))?;
                self.statement(then, Some(Condition { register, value: *val.inner }))?;
            }
        }
        Ok(())
    }

    /// Applies gate `name` with evaluated parameters to `qubits`.
    fn apply(
        &mut self,
        name: &Symbol,
        values: &[f64],
        qubits: &[Qubit],
        condition: Option<Condition>,
        at: FileSpan,
        depth: usize,
    ) -> Result<(), Failure> {
        if depth > MAX_CALL_DEPTH {
            return Err((format!("gate definitions nest more than {MAX_CALL_DEPTH} deep"), at));
        }
        let definition =
            self.definitions.get(name).ok_or_else(|| (format!("undefined gate `{}`", excerpt(name.as_str())), at))?;
        let (builtin, body, params, args) = (definition.builtin, definition.body, definition.params, definition.args);
        if builtin && let Some(gates) = builtin_gates(name.as_str(), values, qubits) {
            for gate in gates {
                self.push_gate(gate, condition, at)?;
            }
            return Ok(());
        }
        let Some(body) = body else {
            return Err((format!("opaque gate `{}` has no definition to simulate", excerpt(name.as_str())), at));
        };
        let env: HashMap<Symbol, f64> =
            params.iter().map(|p| p.inner.to_symbol()).zip(values.iter().copied()).collect();
        let bound: HashMap<Symbol, Qubit> =
            args.iter().map(|a| a.inner.to_symbol()).zip(qubits.iter().copied()).collect();
        let inside = |message: String| (format!("in gate `{name}`: {message}"), at);
        let arg = |reg: &Span<Reg>| {
            bound
                .get(&reg.inner.name)
                .copied()
                .ok_or_else(|| inside(format!("`{}` is not an argument", reg.inner.name)))
        };
        for stmt in body {
            match &*stmt.inner {
                Stmt::U { theta, phi, lambda, reg } => {
                    let values = [self.eval(theta, &env), self.eval(phi, &env), self.eval(lambda, &env)];
                    let [theta, phi, lambda] = values.map(|v| v.map_err(|(m, _)| inside(m)));
                    self.push_gate(Gate::one(GateKind::U(theta?, phi?, lambda?), arg(reg)?), condition, at)?;
                }
                Stmt::CX { copy, xor } => {
                    let (control, target) = (arg(copy)?, arg(xor)?);
                    if control == target {
                        return Err(inside("`CX` is applied to one qubit twice".into()));
                    }
                    self.push_gate(Gate::cx(control, target), condition, at)?;
                }
                Stmt::Gate { name: callee, params, args } => {
                    let values = params
                        .iter()
                        .map(|p| self.eval(p, &env).map_err(|(m, _)| inside(m)))
                        .collect::<Result<Vec<f64>, Failure>>()?;
                    let operands = args.iter().map(arg).collect::<Result<Vec<Qubit>, Failure>>()?;
                    if operands.iter().enumerate().any(|(k, q)| operands[..k].contains(q)) {
                        return Err(inside(format!("`{}` is applied to one qubit twice", callee.inner)));
                    }
                    self.apply(&callee.inner, &values, &operands, condition, at, depth + 1)?;
                }
                Stmt::Barrier { .. } => {}
                Stmt::Measure { .. } | Stmt::Reset { .. } | Stmt::Conditional { .. } => {
                    return Err(inside("only gates may appear in a gate definition".into()));
                }
            }
        }
        Ok(())
    }

    /// Evaluates a parameter expression in `f64`; literals are re-read from the source.
    fn eval(&self, expr: &Span<Expr>, env: &HashMap<Symbol, f64>) -> Result<f64, Failure> {
        let value = self.eval_inner(expr, env)?;
        if value.is_finite() {
            Ok(value)
        } else {
            Err((format!("the parameter evaluates to {value}, not a finite number"), expr.span))
        }
    }

    fn eval_inner(&self, expr: &Span<Expr>, env: &HashMap<Symbol, f64>) -> Result<f64, Failure> {
        let literal =
            |fallback: f64| self.sources.text(self.cache, expr.span).trim().parse::<f64>().unwrap_or(fallback);
        Ok(match &*expr.inner {
            Expr::Pi => PI,
            Expr::Real(value) => literal(f64::from(*value)),
            Expr::Int(value) => literal(*value as f64),
            Expr::Var(name) => *env.get(name).ok_or_else(|| (format!("undefined parameter `{name}`"), expr.span))?,
            Expr::Add(a, b) => self.eval_inner(a, env)? + self.eval_inner(b, env)?,
            Expr::Sub(a, b) => self.eval_inner(a, env)? - self.eval_inner(b, env)?,
            Expr::Mul(a, b) => self.eval_inner(a, env)? * self.eval_inner(b, env)?,
            Expr::Div(a, b) => self.eval_inner(a, env)? / self.eval_inner(b, env)?,
            Expr::Pow(a, b) => self.eval_inner(a, env)?.powf(self.eval_inner(b, env)?),
            Expr::Neg(a) => -self.eval_inner(a, env)?,
            Expr::Sin(a) => self.eval_inner(a, env)?.sin(),
            Expr::Cos(a) => self.eval_inner(a, env)?.cos(),
            Expr::Tan(a) => self.eval_inner(a, env)?.tan(),
            Expr::Exp(a) => self.eval_inner(a, env)?.exp(),
            Expr::Ln(a) => self.eval_inner(a, env)?.ln(),
            Expr::Sqrt(a) => self.eval_inner(a, env)?.sqrt(),
        })
    }
}
