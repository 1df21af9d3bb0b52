//! The checker: OpenQASM 3 statements to [`Code`]. It resolves every name by the scoping
//! rules (`scope`), types and folds expressions (`exprs`, `places`), turns statements into
//! instructions (`statements`, `control`), and checks gate definitions (`gates`) and
//! subroutines with their calls (`calls`). Every error is placed in its file.

mod calls;
mod control;
mod exprs;
mod gates;
mod places;
mod scope;
mod statements;
mod types;
mod values;

pub(crate) use statements::check_duration;

use std::collections::HashMap;

use qchess_circuit::ir::ClassicalRegister;

use self::scope::{Scopes, Symbol};
use super::Bindings;
use super::code::{Code, Instr, Register};
use crate::classical::{Slot, Type};
use crate::parse::v3::syntax::{Stmt, StmtKind};
use crate::parse::{Limits, QasmError};
use crate::program::GateLibrary;

/// A checking error: the byte offset in the current file and the message.
pub(crate) type Fail = (usize, String);

/// Resolves an `include` other than `stdgates.inc`: the file's display name and text.
pub(crate) type Includer<'a> = dyn FnMut(&str) -> Result<(String, String), String> + 'a;

/// Lexes and parses one file's text (named for errors); errors carry the byte offset.
pub(crate) type ParseFile = dyn Fn(&str) -> Result<Vec<Stmt>, Fail>;

/// How deep includes may nest.
const MAX_INCLUDE_DEPTH: usize = 16;

/// The deepest subroutine calls may nest when the program runs.
pub(crate) const MAX_CALL_DEPTH: usize = 256;

pub(crate) fn show(name: &str) -> String {
    qchess_core::text::excerpt(name)
}

/// The variables of the frame being compiled: the next free slot and how many exist.
#[derive(Debug, Default, Clone, Copy)]
struct Frame {
    global: bool,
    next: u32,
}

/// A loop being compiled: where `continue` goes and the `break` jumps to patch.
#[derive(Debug, Default)]
struct Loop {
    continue_to: Option<usize>,
    continues: Vec<usize>,
    breaks: Vec<usize>,
}

pub(crate) struct Compiler<'a> {
    pub(super) code: Code,
    scopes: Scopes,
    limits: &'a Limits,
    /// The file being compiled (index into `code.files`).
    file: usize,
    frame: Frame,
    loops: Vec<Loop>,
    /// The subroutine being compiled: its return type.
    returns: Option<Option<Type>>,
    bindings: &'a Bindings,
    /// `def`s of the binding files, by name: the file and the statement.
    binding_defs: HashMap<String, (usize, Stmt)>,
    unbound_inputs: Vec<String>,
    declared_qubits: bool,
    stretches: u32,
    saw_statement: bool,
}

impl<'a> Compiler<'a> {
    pub(crate) fn new(limits: &'a Limits, bindings: &'a Bindings) -> Compiler<'a> {
        Compiler {
            code: Code::default(),
            scopes: Scopes::new(),
            limits,
            file: 0,
            frame: Frame { global: true, next: 0 },
            loops: Vec::new(),
            returns: None,
            bindings,
            binding_defs: HashMap::new(),
            unbound_inputs: Vec::new(),
            declared_qubits: false,
            stretches: 0,
            saw_statement: false,
        }
    }

    /// Adds a file to the code's list and makes it current; its previous index is returned.
    fn enter_file(&mut self, display: &str, text: &str) -> usize {
        self.code.files.push((display.to_string(), text.to_string()));
        std::mem::replace(&mut self.file, self.code.files.len() - 1)
    }

    /// An error placed in the current file.
    fn placed(&self, (offset, message): Fail) -> QasmError {
        let (name, text) = &self.code.files[self.file];
        QasmError::at(crate::parse::source::locate_offset(name, text, offset), message)
    }

    /// Reads the binding files: their `def`s, by name.
    pub(crate) fn bind(&mut self, parse: &ParseFile) -> Result<(), QasmError> {
        for (display, text) in &self.bindings.externs {
            let previous = self.enter_file(display, text);
            let statements = parse(text).map_err(|e| self.placed(e))?;
            for statement in statements {
                match &statement.kind {
                    StmtKind::Def { name, .. } => {
                        self.binding_defs.insert(name.clone(), (self.file, statement.clone()));
                    }
                    StmtKind::Version(_) => {}
                    StmtKind::Include(path) if path == "stdgates.inc" => {}
                    _ => {
                        return Err(self.placed((
                            statement.offset,
                            "a file of `extern` bindings holds only `def`s (and `include \"stdgates.inc\"`)".into(),
                        )));
                    }
                }
            }
            self.file = previous;
        }
        Ok(())
    }

    /// Compiles the statements of a file named `display` with text `text`; `include`s are read
    /// through `includer`.
    pub(crate) fn file(
        &mut self,
        display: &str,
        text: &str,
        statements: &[Stmt],
        includer: &mut Includer,
        depth: usize,
        parse: &ParseFile,
    ) -> Result<(), QasmError> {
        let previous = self.enter_file(display, text);
        for statement in statements {
            let offset = statement.offset;
            match &statement.kind {
                StmtKind::Version(version) => {
                    if self.saw_statement || depth > 0 {
                        return Err(self.placed((offset, "`OPENQASM` must be the first statement".into())));
                    }
                    if version != "3" && !version.starts_with("3.") {
                        let message = format!("OpenQASM {version} is not supported; this reads OpenQASM 2.0 and 3");
                        return Err(self.placed((offset, message)));
                    }
                }
                StmtKind::Include(path) => self.include(path, offset, includer, depth, parse)?,
                _ => self.statement(statement).map_err(|e| self.placed(e))?,
            }
            self.saw_statement = true;
        }
        self.file = previous;
        Ok(())
    }

    fn include(
        &mut self,
        path: &str,
        offset: usize,
        includer: &mut Includer,
        depth: usize,
        parse: &ParseFile,
    ) -> Result<(), QasmError> {
        if !self.scopes.at_global() {
            return Err(self.placed((offset, "`include` must be at the top level".into())));
        }
        match path {
            "stdgates.inc" => {
                if self.code.shell.library == GateLibrary::Stdgates {
                    return Err(self.placed((offset, "`stdgates.inc` is included twice".into())));
                }
                if let Some(gate) = crate::program::STANDARD_GATES
                    .iter()
                    .find(|g| g.in_stdgates && self.scopes.global(g.name).is_some())
                {
                    let message = format!("`{}` is already defined, and stdgates.inc defines it too", gate.name);
                    return Err(self.placed((offset, message)));
                }
                self.code.shell.library = GateLibrary::Stdgates;
                Ok(())
            }
            "qelib1.inc" => Err(self.placed((
                offset,
                "`qelib1.inc` is OpenQASM 2's library; OpenQASM 3 programs include \"stdgates.inc\"".into(),
            ))),
            other => {
                if depth >= MAX_INCLUDE_DEPTH {
                    return Err(self.placed((offset, format!("includes nest more than {MAX_INCLUDE_DEPTH} deep"))));
                }
                let (display, text) = includer(other)
                    .map_err(|reason| self.placed((offset, format!("cannot include \"{}\": {reason}", show(other)))))?;
                let statements = parse(&text).map_err(|e| {
                    let (name, _) = (&display, ());
                    QasmError::at(crate::parse::source::locate_offset(name, &text, e.0), e.1)
                })?;
                self.file(&display, &text, &statements, includer, depth + 1, parse)
            }
        }
    }

    /// The compiled program, once every file is read.
    pub(crate) fn finish(mut self) -> Result<Code, QasmError> {
        if !self.unbound_inputs.is_empty() {
            let names = self.unbound_inputs.join("`, `");
            let file = self.code.files.first().map_or(String::new(), |(name, _)| name.clone());
            return Err(QasmError::Unreadable {
                file,
                reason: format!("the program's `input` variables need values (`--input name=value`): `{names}`"),
            });
        }
        let end = self.code.files.first().map_or(0, |(_, t)| t.len());
        self.file = 0;
        self.emit(Instr::End, end);
        self.code.globals = self.frame.next as usize;
        if !self.code.declared_outputs {
            self.code.outputs = self.code.registers.iter().map(|r| (r.slot, r.len)).collect();
        }
        Ok(self.code)
    }

    /// Appends an instruction written at `offset` of the current file; its index.
    pub(crate) fn emit(&mut self, instr: Instr, offset: usize) -> usize {
        self.code.instrs.push(instr);
        self.code.origins.push((self.file, offset));
        self.code.instrs.len() - 1
    }

    /// The index the next instruction will have.
    pub(crate) fn here(&self) -> usize {
        self.code.instrs.len()
    }

    /// A new variable in the frame being compiled.
    pub(crate) fn slot(&mut self) -> Slot {
        let slot = Slot { global: self.frame.global, index: self.frame.next };
        self.frame.next += 1;
        slot
    }

    /// Declares `name` in the innermost scope, refusing a name already taken there.
    pub(crate) fn declare(&mut self, name: &str, symbol: Symbol, offset: usize) -> Result<(), Fail> {
        if self.scopes.taken(name) || crate::classical::builtins::constant(name).is_some() {
            return Err((offset, format!("`{}` is already defined", show(name))));
        }
        if matches!(symbol, Symbol::Gate | Symbol::Def(_))
            && (matches!(name, "U" | "gphase")
                || crate::program::standard_gate(name, self.code.shell.library).is_some())
        {
            let by = if matches!(name, "U" | "gphase") { "built in" } else { "defined by stdgates.inc" };
            return Err((offset, format!("`{}` is already {by}", show(name))));
        }
        self.scopes.declare(name, symbol);
        Ok(())
    }

    /// Records a global bit register as classical bits of the static circuit.
    fn register(&mut self, name: &str, slot: Slot, len: u32, offset: usize) -> Result<(), Fail> {
        let start = self.code.shell.clbits;
        if start as usize + len as usize > self.limits.max_clbits {
            let message = format!("`{}` brings the bit count past the limit of {}", show(name), self.limits.max_clbits);
            return Err((offset, message));
        }
        self.code.registers.push(Register { slot: slot.index, start, len });
        self.code.shell.registers.push(ClassicalRegister { name: name.to_string(), start, len });
        self.code.shell.clbits += len;
        Ok(())
    }
}
