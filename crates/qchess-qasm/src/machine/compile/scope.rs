//! Names in scope, as the specification's scoping rules see them: blocks see everything around
//! them; a subroutine or gate body sees only the global constants, gates and subroutines (and
//! physical qubits), not global variables or qubit registers; a name may be declared once per
//! scope and shadowed in an inner one.

use std::collections::HashMap;

use crate::classical::{Expr, Slot, Type, Value};

/// What a name stands for.
#[derive(Debug, Clone)]
pub(crate) enum Symbol {
    /// A variable.
    Var { slot: Slot, ty: Type, writable: bool },
    /// A compile-time constant.
    Const { value: Value, ty: Type },
    /// An alias (`let`) or a qubit register: the expression it stands for.
    Alias(Expr),
    /// A gate.
    Gate,
    /// A subroutine (`def`), by index.
    Def(usize),
}

impl Symbol {
    /// Whether the symbol is visible inside subroutine and gate bodies.
    fn crosses_definitions(&self) -> bool {
        match self {
            Symbol::Const { .. } | Symbol::Gate | Symbol::Def(_) => true,
            Symbol::Var { .. } => false,
            // A register of qubits or an alias of them is a global variable too.
            Symbol::Alias(_) => false,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ScopeKind {
    Global,
    /// A subroutine's or gate's body.
    Definition,
    Block,
}

#[derive(Debug)]
struct Scope {
    kind: ScopeKind,
    names: HashMap<String, Symbol>,
}

#[derive(Debug)]
pub(crate) struct Scopes {
    stack: Vec<Scope>,
}

impl Scopes {
    pub(crate) fn new() -> Scopes {
        Scopes { stack: vec![Scope { kind: ScopeKind::Global, names: HashMap::new() }] }
    }

    pub(crate) fn push(&mut self, kind: ScopeKind) {
        self.stack.push(Scope { kind, names: HashMap::new() });
    }

    pub(crate) fn pop(&mut self) {
        self.stack.pop();
    }

    /// Whether the innermost scope is the global one.
    pub(crate) fn at_global(&self) -> bool {
        self.stack.len() == 1
    }

    /// Whether the code being compiled is inside a subroutine or gate body.
    pub(crate) fn in_definition(&self) -> bool {
        self.stack.iter().any(|s| s.kind == ScopeKind::Definition)
    }

    /// The symbol `name` stands for here.
    pub(crate) fn lookup(&self, name: &str) -> Option<&Symbol> {
        let mut crossed = false;
        for scope in self.stack.iter().rev() {
            if let Some(symbol) = scope.names.get(name)
                && (!crossed || symbol.crosses_definitions())
            {
                return Some(symbol);
            }
            if scope.kind == ScopeKind::Definition {
                crossed = true;
            }
        }
        None
    }

    /// Whether `name` is declared in the innermost scope, or is a global gate or subroutine
    /// (which nothing may redeclare).
    pub(crate) fn taken(&self, name: &str) -> bool {
        let innermost = self.stack.last().is_some_and(|s| s.names.contains_key(name));
        let global = self.stack[0].names.get(name);
        innermost || matches!(global, Some(Symbol::Gate | Symbol::Def(_)))
    }

    /// Declares `name` in the innermost scope (the caller checks [`Scopes::taken`] first).
    pub(crate) fn declare(&mut self, name: &str, symbol: Symbol) {
        if let Some(scope) = self.stack.last_mut() {
            scope.names.insert(name.to_string(), symbol);
        }
    }

    /// The global symbol `name`, if any.
    pub(crate) fn global(&self, name: &str) -> Option<&Symbol> {
        self.stack[0].names.get(name)
    }
}
