//! The machine's memory: the global frame and one frame per running subroutine, and the
//! measurements whose outcomes are not read yet.
//!
//! A measurement is not resolved when it runs: it is recorded as pending, with the bit it
//! writes. Its outcome is drawn only when something needs it (a read of the bit, or another
//! gate or reset on the qubit), so a program whose measurements are final never branches on
//! them, and the final ones are read from the final state.

use super::code::{Place, PlaceStep};
use crate::classical::convert::wrap_int;
use crate::classical::expr::{copy, indices, narrow, strides};
use crate::classical::value::{ArrayView, Value, bits_of, number_of};
use crate::classical::{Env, EvalError, Slot, Type};

/// The variables of one frame, and where its call returns to.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct Frame {
    pub(crate) function: Option<usize>,
    pub(crate) return_to: usize,
    /// The caller's variable that takes the result.
    pub(crate) result: Option<Slot>,
    pub(crate) slots: Vec<Value>,
}

/// A bit a measurement writes: frame (0 the global one), variable and bit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct Target {
    pub(crate) frame: usize,
    pub(crate) slot: u32,
    pub(crate) bit: u32,
}

/// A measurement whose outcome is not read yet.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct Pending {
    pub(crate) qubit: u32,
    /// The bit it writes, if it still does.
    pub(crate) target: Option<Target>,
    /// The type of the variable it writes.
    pub(crate) ty: Type,
}

#[derive(Debug, Clone)]
pub(crate) struct Memory {
    pub(crate) frames: Vec<Frame>,
    pub(crate) pending: Vec<Pending>,
    /// Whether an assignment has overwritten a global bit a measurement was to write (the
    /// static circuit's bit would still hold the measurement).
    pub(crate) overwrote: bool,
}

impl PartialEq for Memory {
    fn eq(&self, other: &Memory) -> bool {
        self.frames == other.frames && self.pending == other.pending
    }
}

impl Eq for Memory {}

impl std::hash::Hash for Memory {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.frames.hash(state);
        self.pending.hash(state);
    }
}

impl Env for Memory {
    fn read(&self, slot: Slot) -> &Value {
        let frame = if slot.global { &self.frames[0] } else { &self.frames[self.frames.len() - 1] };
        &frame.slots[slot.index as usize]
    }
}

/// What a place resolves to when the program runs.
enum Location {
    /// A whole variable.
    Whole,
    /// Elements of an array variable (or of the global array an array parameter refers to).
    Elements(ArrayView),
    /// Bits of the variable, or of one element of it.
    Bits { element: Option<usize>, bits: Vec<usize>, ty: Type },
}

impl Memory {
    pub(crate) fn new(globals: usize) -> Memory {
        let frame = Frame { function: None, return_to: 0, result: None, slots: vec![Value::Int(0); globals] };
        Memory { frames: vec![frame], pending: Vec::new(), overwrote: false }
    }

    /// The frame index of `slot`.
    pub(crate) fn frame_of(&self, slot: Slot) -> usize {
        if slot.global { 0 } else { self.frames.len() - 1 }
    }

    /// A pending measurement that writes variable `slot`, if any.
    pub(crate) fn pending_in(&self, slot: Slot) -> Option<u32> {
        let frame = self.frame_of(slot);
        self.pending
            .iter()
            .find(|p| p.target.is_some_and(|t| t.frame == frame && t.slot == slot.index))
            .map(|p| p.qubit)
    }

    /// Stops pending measurements writing `slot` (or only `bits` of it) from writing it;
    /// whether there were any.
    pub(crate) fn forget(&mut self, frame: usize, slot: u32, bits: Option<&[usize]>) -> bool {
        let mut any = false;
        for pending in &mut self.pending {
            if let Some(t) = pending.target
                && t.frame == frame
                && t.slot == slot
                && bits.is_none_or(|b| b.contains(&(t.bit as usize)))
            {
                pending.target = None;
                any = true;
            }
        }
        any
    }

    /// The bits of a bit variable (empty for other values).
    pub(crate) fn read_bits(&self, slot: Slot) -> Vec<bool> {
        match self.read(slot) {
            Value::Bits(bits) => bits.clone(),
            Value::Bool(b) => vec![*b],
            _ => Vec::new(),
        }
    }

    /// Sets one bit of a variable (a measurement outcome), keeping integers normalised.
    pub(crate) fn set_bit(&mut self, target: Target, value: bool, ty: &Type) {
        let slot = &mut self.frames[target.frame].slots[target.slot as usize];
        set_bits(slot, &[target.bit as usize], &Value::Bool(value), ty);
    }

    /// The bits of the variable a place names, for a measurement: its frame, slot and bits.
    pub(crate) fn target_bits(&self, place: &Place) -> Result<(usize, Vec<usize>), EvalError> {
        let frame = self.frame_of(place.slot);
        match self.locate(place)? {
            Location::Whole => Ok((frame, (0..place.root.bit_width().unwrap_or(1) as usize).collect())),
            Location::Bits { element: None, bits, .. } => Ok((frame, bits)),
            _ => Err((usize::MAX, "a measurement writes a bit variable or bits of one".into())),
        }
    }

    fn locate(&self, place: &Place) -> Result<Location, EvalError> {
        let mut location = match self.read(place.slot) {
            Value::ArrayRef(view) => Location::Elements(view.clone()),
            Value::Array(array) if !place.path.is_empty() => Location::Elements(ArrayView {
                slot: place.slot.index,
                offset: 0,
                dims: array.dims.clone(),
                strides: strides(&array.dims),
            }),
            _ => Location::Whole,
        };
        let mut ty = place.root.clone();
        for step in &place.path {
            location = match (step, location) {
                (PlaceStep::Elements(selectors), Location::Elements(view)) => {
                    let part = narrow(&view, selectors, &place.what, self)?;
                    if let Type::Array { base, .. } | Type::ArrayRef { base, .. } = &ty {
                        ty = if part.dims.is_empty() { (**base).clone() } else { ty.clone() };
                    }
                    Location::Elements(part)
                }
                (PlaceStep::Bits(selector, bits_ty), Location::Whole) => {
                    let width = bits_ty.bit_width().unwrap_or(1) as usize;
                    let bits = indices(selector, width, &place.what, self)?;
                    Location::Bits { element: None, bits, ty: bits_ty.clone() }
                }
                (PlaceStep::Bits(selector, bits_ty), Location::Elements(view)) if view.dims.is_empty() => {
                    let width = bits_ty.bit_width().unwrap_or(1) as usize;
                    let bits = indices(selector, width, &place.what, self)?;
                    Location::Bits { element: Some(view.offset), bits, ty: bits_ty.clone() }
                }
                _ => return Err((usize::MAX, format!("`{}` cannot be assigned this way", place.what))),
            };
        }
        Ok(location)
    }

    /// Stores `value` (already of the place's type) into `place`.
    pub(crate) fn write(&mut self, place: &Place, value: Value) -> Result<(), EvalError> {
        let frame = self.frame_of(place.slot);
        match self.locate(place)? {
            Location::Whole => {
                self.overwrote |= self.forget(frame, place.slot.index, None) && frame == 0;
                self.frames[frame].slots[place.slot.index as usize] = value;
            }
            Location::Elements(view) => {
                let root = if matches!(self.read(place.slot), Value::ArrayRef(_)) { 0 } else { frame };
                let Value::Array(array) = &mut self.frames[root].slots[view.slot as usize] else {
                    return Err((usize::MAX, format!("`{}` is not an array", place.what)));
                };
                if view.dims.is_empty() {
                    array.items[view.offset] = value;
                    return Ok(());
                }
                let Value::Array(source) = value else {
                    return Err((usize::MAX, "an array is assigned an array".into()));
                };
                if source.dims != view.dims {
                    return Err((
                        usize::MAX,
                        format!("an array of shape {:?} assigned to a part of shape {:?}", source.dims, view.dims),
                    ));
                }
                // Read every value first: source and destination may overlap.
                let positions = copy(&(0..array.items.len()).map(|i| Value::Int(i as i128)).collect::<Vec<_>>(), &view);
                for (position, item) in positions.items.iter().zip(source.items) {
                    if let Value::Int(i) = position {
                        array.items[*i as usize] = item;
                    }
                }
            }
            Location::Bits { element, bits, ty } => {
                if element.is_none() {
                    self.overwrote |= self.forget(frame, place.slot.index, Some(&bits)) && frame == 0;
                }
                let slot = &mut self.frames[frame].slots[place.slot.index as usize];
                let cell = match (element, slot) {
                    (None, cell) => cell,
                    (Some(i), Value::Array(array)) => &mut array.items[i],
                    (Some(_), _) => return Err((usize::MAX, format!("`{}` is not an array", place.what))),
                };
                set_bits(cell, &bits, &value, &ty);
            }
        }
        Ok(())
    }
}

/// Sets bits `bits` of `cell` (of type `ty`) from `value` (a bit or a register).
fn set_bits(cell: &mut Value, bits: &[usize], value: &Value, ty: &Type) {
    let source: Vec<bool> = match value {
        Value::Bool(b) => vec![*b],
        Value::Bits(b) => b.clone(),
        _ => Vec::new(),
    };
    let width = ty.bit_width().unwrap_or(1);
    let mut current = match cell {
        Value::Bits(b) => b.clone(),
        Value::Bool(b) => vec![*b],
        Value::Int(i) => bits_of(*i, width),
        Value::Angle(p) => bits_of(i128::from(*p), width),
        _ => return,
    };
    for (&index, &bit) in bits.iter().zip(&source) {
        if let Some(slot) = current.get_mut(index) {
            *slot = bit;
        }
    }
    *cell = match (cell.clone(), ty) {
        (Value::Bool(_), _) => Value::Bool(current[0]),
        (Value::Int(_), ty) => Value::Int(wrap_int(number_of(&current) as i128, ty)),
        (Value::Angle(_), _) => Value::Angle(number_of(&current) as u64),
        _ => Value::Bits(current),
    };
}
