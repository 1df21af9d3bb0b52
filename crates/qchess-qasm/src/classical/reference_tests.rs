//! Random classical programs (integer expressions over variables of several widths and
//! signs, casts, shifts, compound assignments, `for` loops and `if`/`else`) evaluate as a
//! reference evaluator does: a model of the rules written for this test alone (operands
//! converted to their common type, the operation computed exactly, the result wrapped to that
//! type; comparisons by value).

use proptest::prelude::*;

use super::tests::outputs;

/// The variables' types: (name in OpenQASM, width, signed).
const TYPES: [(&str, u32, bool); 4] =
    [("uint[8]", 8, false), ("int[8]", 8, true), ("uint[4]", 4, false), ("int[16]", 16, true)];

/// A literal's type: an unsized `int`.
const LITERAL: (u32, bool) = (64, true);

fn wrap(value: i128, (width, signed): (u32, bool)) -> i128 {
    let low = value & ((1i128 << width) - 1);
    if signed && low >> (width - 1) & 1 == 1 { low - (1i128 << width) } else { low }
}

/// The type two operands combine in: the wider one's; unsigned when the widths tie and either is.
fn common(a: (u32, bool), b: (u32, bool)) -> (u32, bool) {
    if a.0 != b.0 { if a.0 > b.0 { a } else { b } } else { (a.0, a.1 && b.1) }
}

/// A small generator (xorshift), so each case is one seed and prints as a program.
struct Random(u64);

impl Random {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

/// A program being generated and evaluated at once.
struct Program {
    text: String,
    values: [i128; 4],
    /// The values of the enclosing loops' variables (`i0`, `i1`).
    loops: Vec<i128>,
}

impl Program {
    /// A random expression: its text, value and type.
    fn expr(&mut self, random: &mut Random, depth: u32) -> (String, i128, (u32, bool)) {
        let choice = if depth == 0 { random.below(3) } else { random.below(10) };
        match choice {
            0 => {
                let v = random.below(300) as i128;
                (v.to_string(), v, LITERAL)
            }
            1 if !self.loops.is_empty() => {
                let i = random.below(self.loops.len() as u64) as usize;
                (format!("i{i}"), self.loops[i], LITERAL)
            }
            1 | 2 => {
                let v = random.below(4) as usize;
                (format!("v{v}"), self.values[v], (TYPES[v].1, TYPES[v].2))
            }
            3..=6 => {
                let ops = ["+", "-", "*", "&", "|", "^", "/", "%"];
                let op = ops[random.below(ops.len() as u64) as usize];
                let (a, va, ta) = self.expr(random, depth - 1);
                let (mut b, mut vb, mut tb) = self.expr(random, depth - 1);
                if op == "/" || op == "%" {
                    // An odd divisor is never zero, whatever its width.
                    b = format!("({b} | 1)");
                    let t = common(tb, LITERAL);
                    vb = wrap(wrap(vb, t) | 1, t);
                    tb = t;
                }
                let t = common(ta, tb);
                let (x, y) = (wrap(va, t), wrap(vb, t));
                let v = match op {
                    "+" => x + y,
                    "-" => x - y,
                    "*" => x * y,
                    "&" => x & y,
                    "|" => x | y,
                    "^" => x ^ y,
                    "/" => x / y,
                    _ => x % y,
                };
                (format!("({a} {op} {b})"), wrap(v, t), t)
            }
            7 => {
                let (a, va, ta) = self.expr(random, depth - 1);
                if random.below(2) == 0 {
                    (format!("(-{a})"), wrap(-va, ta), ta)
                } else {
                    (format!("(~{a})"), wrap(!va, ta), ta)
                }
            }
            8 => {
                let (name, width, signed) = TYPES[random.below(4) as usize];
                let (a, va, _) = self.expr(random, depth - 1);
                (format!("{name}({a})"), wrap(va, (width, signed)), (width, signed))
            }
            _ => {
                let (a, va, ta) = self.expr(random, depth - 1);
                let k = random.below(10) as u32;
                if random.below(2) == 0 {
                    (format!("({a} << {k})"), wrap(va << k, ta), ta)
                } else {
                    (format!("({a} >> {k})"), wrap(va >> k, ta), ta)
                }
            }
        }
    }

    fn statements(&mut self, random: &mut Random, count: u64, depth: u32) {
        for _ in 0..count {
            match random.below(if depth == 0 { 2 } else { 4 }) {
                0 => {
                    let v = random.below(4) as usize;
                    let (e, value, _) = self.expr(random, 3);
                    self.text.push_str(&format!("v{v} = {e};\n"));
                    self.values[v] = wrap(value, (TYPES[v].1, TYPES[v].2));
                }
                1 => {
                    let v = random.below(4) as usize;
                    let ops = ["+", "-", "*", "&", "|", "^"];
                    let op = ops[random.below(ops.len() as u64) as usize];
                    let (e, value, te) = self.expr(random, 2);
                    let tv = (TYPES[v].1, TYPES[v].2);
                    let t = common(tv, te);
                    let (x, y) = (wrap(self.values[v], t), wrap(value, t));
                    let r = match op {
                        "+" => x + y,
                        "-" => x - y,
                        "*" => x * y,
                        "&" => x & y,
                        "|" => x | y,
                        _ => x ^ y,
                    };
                    self.text.push_str(&format!("v{v} {op}= {e};\n"));
                    self.values[v] = wrap(wrap(r, t), tv);
                }
                2 => {
                    let (lo, hi) = (random.below(3) as i128, random.below(4) as i128);
                    let index = self.loops.len();
                    self.text.push_str(&format!("for int i{index} in [{lo}:{hi}] {{\n"));
                    let body_start = self.text.len();
                    let saved = (self.values, random.0);
                    // Each pass draws the same statements: generate once per pass from one seed.
                    let mut first = true;
                    let mut i = lo;
                    while i <= hi || first {
                        let mut pass = Random(saved.1);
                        self.text.truncate(body_start);
                        self.loops.push(i);
                        if i <= hi {
                            self.statements(&mut pass, 2, depth - 1);
                        } else {
                            // No pass runs: draw the body's text without its values.
                            let values = self.values;
                            self.statements(&mut pass, 2, depth - 1);
                            self.values = values;
                        }
                        self.loops.pop();
                        random.0 = pass.0;
                        first = false;
                        i += 1;
                    }
                    self.text.push_str("}\n");
                }
                _ => {
                    let (a, va, _) = self.expr(random, 2);
                    let (b, vb, _) = self.expr(random, 2);
                    self.text.push_str(&format!("if ({a} < {b}) {{\n"));
                    let taken = va < vb;
                    let values = self.values;
                    self.statements(random, 1, depth - 1);
                    let then_values = self.values;
                    self.values = values;
                    self.text.push_str("} else {\n");
                    self.statements(random, 1, depth - 1);
                    if taken {
                        self.values = then_values;
                    }
                    self.text.push_str("}\n");
                }
            }
        }
    }
}

/// A random program and the outputs the reference evaluator gives it.
fn generate(seed: u64) -> (String, u64) {
    let mut random = Random(seed | 1);
    let mut program = Program { text: "OPENQASM 3.0;\n".into(), values: [0; 4], loops: Vec::new() };
    for (i, (name, width, signed)) in TYPES.iter().enumerate() {
        let value = random.below(1 << width) as i128;
        program.text.push_str(&format!("output {name} v{i} = {value};\n"));
        program.values[i] = wrap(value, (*width, *signed));
    }
    let count = 1 + random.below(6);
    program.statements(&mut random, count, 2);
    let mut key = 0u64;
    let mut shift = 0;
    for (i, (_, width, _)) in TYPES.iter().enumerate() {
        key |= (program.values[i] as u64 & ((1u64 << width) - 1)) << shift;
        shift += width;
    }
    (program.text, key)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn random_classical_programs_evaluate_as_the_reference_does(seed in any::<u64>()) {
        let (text, expected) = generate(seed);
        let got = outputs(&text);
        prop_assert_eq!(got, expected, "{}", text);
    }
}
