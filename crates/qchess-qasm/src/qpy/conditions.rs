//! Conditions on classical bits as QPY stores them: a register or bit compared with a value
//! (tuple conditions, and `REGISTER` payloads), and the classical expressions (`EXPRESSION`)
//! that simple conditions are made of.

use super::QpyError;
use super::bytes::Bytes;

/// How deep a classical expression may nest.
const MAX_EXPRESSION_DEPTH: usize = 64;

/// A condition on classical bits, as QPY stores it: a register or one bit compared with a
/// value, possibly negated.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Condition {
    pub(super) target: Target,
    pub(super) value: u64,
    pub(super) equal: bool,
}

/// What a condition reads.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Target {
    Clbit(u32),
    Register(String),
}

fn malformed(bytes: &Bytes, what: impl Into<String>) -> QpyError {
    QpyError::Malformed { at: format!("byte {}", bytes.offset()), what: what.into() }
}

fn unsupported(what: impl Into<String>) -> QpyError {
    QpyError::Unsupported { at: String::new(), what: what.into() }
}

/// A classical expression (`EXPRESSION`) that a condition can be made of.
pub(super) fn expression(bytes: &mut Bytes, depth: usize) -> Result<Condition, QpyError> {
    let node = node(bytes, depth)?;
    condition_of(&node).ok_or_else(|| unsupported("a condition other than a bit or register compared with a constant"))
}

/// A parsed expression node (only the kinds a simple condition uses).
#[derive(Debug, Clone)]
enum Node {
    Clbit(u32),
    Register(String),
    Int(u64),
    Bool(bool),
    Unary(u8, Box<Node>),
    Binary(u8, Box<Node>, Box<Node>),
}

fn node(bytes: &mut Bytes, depth: usize) -> Result<Node, QpyError> {
    if depth > MAX_EXPRESSION_DEPTH {
        return Err(malformed(bytes, format!("expressions nest more than {MAX_EXPRESSION_DEPTH} deep")));
    }
    let kind = bytes.u8("expression kind")?;
    match bytes.u8("expression type")? {
        b'u' => {
            bytes.u32("expression width")?;
        }
        b'b' | b'f' | b'd' => {}
        other => return Err(malformed(bytes, format!("unknown expression type `{}`", char::from(other)))),
    }
    Ok(match kind {
        b'x' => match bytes.u8("variable kind")? {
            b'C' => Node::Clbit(bytes.u32("clbit index")?),
            b'R' => {
                let size = bytes.u16("register name size")?;
                Node::Register(bytes.text(u64::from(size), "register name")?)
            }
            b'U' => return Err(unsupported("classical variables in conditions")),
            other => return Err(malformed(bytes, format!("unknown variable kind `{}`", char::from(other)))),
        },
        b'v' => match bytes.u8("value kind")? {
            b'b' => Node::Bool(bytes.bool("boolean")?),
            b'i' => {
                let size = bytes.u8("integer size")?;
                let digits = bytes.take(u64::from(size), "integer")?;
                if digits.len() > 8 && digits[..digits.len() - 8].iter().any(|&b| b != 0)
                    || digits.first().is_some_and(|b| b & 0x80 != 0)
                {
                    return Err(unsupported("a condition value that is negative or wider than 64 bits"));
                }
                Node::Int(digits.iter().fold(0u64, |v, &b| v << 8 | u64::from(b)))
            }
            other => return Err(unsupported(format!("a condition value of kind `{}`", char::from(other)))),
        },
        b'c' => {
            bytes.bool("cast flag")?;
            node(bytes, depth + 1)?
        }
        b'u' => {
            let op = bytes.u8("unary op")?;
            Node::Unary(op, Box::new(node(bytes, depth + 1)?))
        }
        b'b' => {
            let op = bytes.u8("binary op")?;
            let left = node(bytes, depth + 1)?;
            let right = node(bytes, depth + 1)?;
            Node::Binary(op, Box::new(left), Box::new(right))
        }
        other => return Err(unsupported(format!("an expression of kind `{}`", char::from(other)))),
    })
}

/// The condition a node stands for, when it is a simple one.
fn condition_of(node: &Node) -> Option<Condition> {
    let target = |n: &Node| match n {
        Node::Clbit(i) => Some(Target::Clbit(*i)),
        Node::Register(name) => Some(Target::Register(name.clone())),
        _ => None,
    };
    let constant = |n: &Node| match n {
        Node::Int(v) => Some(*v),
        Node::Bool(b) => Some(u64::from(*b)),
        _ => None,
    };
    match node {
        Node::Clbit(i) => Some(Condition { target: Target::Clbit(*i), value: 1, equal: true }),
        // Logical or bitwise not of one bit.
        Node::Unary(1 | 2, inner) => match **inner {
            Node::Clbit(i) => Some(Condition { target: Target::Clbit(i), value: 0, equal: true }),
            _ => None,
        },
        // 6: equal, 7: not equal.
        Node::Binary(op @ (6 | 7), a, b) => {
            let (t, v) = match (target(a), constant(b)) {
                (Some(t), Some(v)) => (t, v),
                _ => (target(b)?, constant(a)?),
            };
            Some(Condition { target: t, value: v, equal: *op == 6 })
        }
        _ => None,
    }
}

/// What a `REGISTER` payload (an `R` parameter, a tuple condition's register bytes) names. Up
/// to QPY 17, `"\0N"` names clbit `N` and any other text a register; from 18 a tag byte says
/// which: 0 and a `u32` bit index, or 1 and the register's name.
pub(super) fn register_target(text: &[u8], at: &Bytes, version: u8) -> Result<Target, QpyError> {
    if version >= 18 {
        return match text.split_first() {
            Some((0, index)) => <[u8; 4]>::try_from(index)
                .map(|index| Target::Clbit(u32::from_be_bytes(index)))
                .map_err(|_| malformed(at, format!("a condition bit of {} bytes, not 4", index.len()))),
            Some((1, name)) => String::from_utf8(name.to_vec())
                .map(Target::Register)
                .map_err(|_| malformed(at, "a condition register name is not UTF-8")),
            Some((tag, _)) => Err(malformed(at, format!("unknown register payload tag {tag}"))),
            None => Err(malformed(at, "an empty register payload")),
        };
    }
    let text = std::str::from_utf8(text).map_err(|_| malformed(at, "a condition register name is not UTF-8"))?;
    match text.strip_prefix('\0') {
        Some(index) => {
            index.parse().map(Target::Clbit).map_err(|_| malformed(at, "a condition bit index is not a number"))
        }
        None => Ok(Target::Register(text.to_string())),
    }
}
