//! The classical layer against the specification's own worked examples (the types, casting and
//! classical-instructions chapters), each run through the whole reader and machine.

use qchess_circuit::dynamic::{Dynamic, Next};

use super::convert::{angle_from_radians, cast, resize_angle, round_float, wrap_int};
use super::types::Type;
use super::value::Value;
use crate::machine::{Bindings, load};
use crate::parse::Limits;

/// Runs a program without measurements to its end and gives its result (outputs, low first).
pub(crate) fn outputs(text: &str) -> u64 {
    let loaded =
        load(text, "t.qasm3", None, &Limits::default(), &Bindings::default()).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let mut machine = loaded.machine;
    loop {
        match machine.next(None).unwrap_or_else(|e| panic!("{e}\n{text}")) {
            Next::Done => return machine.result(0),
            Next::Measure(_) => panic!("a measurement in {text}"),
            Next::Gate(_) | Next::Reset(_) => {}
        }
    }
}

/// Each `check` of `body` (a boolean expression) must hold.
fn checks(declarations: &str, checks: &[&str]) {
    let mut text = format!("OPENQASM 3.0;\noutput bit[{}] ok;\n{declarations}\n", checks.len());
    for (i, check) in checks.iter().enumerate() {
        text.push_str(&format!("ok[{i}] = {check};\n"));
    }
    let result = outputs(&text);
    for (i, check) in checks.iter().enumerate() {
        assert!(result >> i & 1 == 1, "`{check}` does not hold:\n{text}");
    }
}

#[test]
fn integers_wrap_and_divide_as_integers() {
    checks(
        "int[32] a = 2;\nint[32] b = 3;\nuint[8] u = 250;\nint[8] s = 127;\nint[4] seven = 7;",
        &[
            "a * b == 6",
            "b / a == 1",
            "b % a == 1",
            "a ** b == 8",
            "uint[8](u + 10) == 4",
            "int[8](s + 1) == -128",
            "-7 / 2 == -3",
            "-7 % 3 == -1",
            "mod(-7, 3) == 2",
            "int[4](seven + 1) == -8",
            "uint[8](-1) == 255",
            "int[8](200) == -56",
            "int[8](-1.9) == -1",
            "2 ** -1 == 0",
            "(1 << 3) + (32 >> 2) == 16",
            "~uint[4](5) == 10",
        ],
    );
}

#[test]
fn bits_registers_and_bit_level_access() {
    checks(
        "bit[8] a = \"10001111\";\nbit[8] b = \"01110000\";\nint[32] my_int = 15;\nuint[6] c = 37;\n\
         my_int[4:7] = \"1010\";",
        &[
            "a << 1 == \"00011110\"",
            "rotl(a, 2) == \"00111110\"",
            "rotr(a, 2) == \"11100011\"",
            "(a | b) == \"11111111\"",
            "(a & b) == \"00000000\"",
            "popcount(c) == 3",
            "rotl(c, 3) == 44",
            "my_int == 175",
            "bit[1](my_int[0]) == \"1\"",
            "my_int[0:2:7] == \"0011\"",
            "int[8](a) == -113",
            "bool(b)",
            "!bool(a & b)",
        ],
    );
}

#[test]
fn angles_follow_their_bit_patterns() {
    checks(
        "angle[4] a = 7 * (pi / 8);\nangle[4] b = pi / 8;\nangle[4] c = 5 * (pi / 4);\nuint[4] two = 2;\n\
         angle[4] d = 9 * (pi / 8);\nangle[4] quarter = pi / 4;\nangle[6] half = pi / 2;\nangle[8] seven = 7 * (pi / 8);",
        &[
            "bit[4](a + b) == \"1000\"",
            "bit[4](b - a) == \"1010\"",
            "bit[4](a / two) == \"0011\"",
            "bit[4](two * c) == \"0100\"",
            "c / b == 10",
            "bit[4](d << 2) == \"0100\"",
            "bit[4](d >> 2) == \"0010\"",
            "bit[4](-quarter) == \"1110\"",
            "bit[6](half) == \"010000\"",
            "bit[8](seven) == \"01110000\"",
            "bit[8](angle[8](6.283185307179586 * (127.0 / 512.0))) == \"01000000\"",
            "a == 7 * pi / 8",
            "bit[8](angle[8](b)) == \"00010000\"",
        ],
    );
}

#[test]
fn floats_complex_numbers_and_built_in_functions() {
    checks(
        "float[32] third = 1.0 / 3.0;\nfloat[64] exact = 1.0 / 3.0;\ncomplex[float[64]] a = 10.0 + 5.0im;\n\
         complex[float[64]] b = -2.0 - 7.0im;",
        &[
            "third != exact",
            "float[64](third) == 0.3333333432674408",
            "a + b == 8.0 - 2.0im",
            "a * b == 15.0 - 80.0im",
            "real(a / b) * 53.0 > -55.0000001 && real(a / b) * 53.0 < -54.9999999",
            "imag(a) == 5.0",
            "sqrt(16.0) == 4.0",
            "floor(-1.5) == -2.0 && ceiling(-1.5) == -1.0",
            "arccos(0.0) == pi / 2",
            "sin(angle[8](pi / 2)) == 1.0",
            "exp(0.0) == 1.0 && log(euler) == 1.0",
            "mod(7.5, 2.0) == 1.5",
            "7 / 2.0 == 3.5",
        ],
    );
}

#[test]
fn durations_add_scale_and_divide() {
    checks(
        "duration one_ns = 1ns;\nduration a = 500ns;\nduration samples = 40dt;\nstretch s;",
        &[
            "a / one_ns > 499.999999 && a / one_ns < 500.000001",
            "(2 * samples + 120dt) / samples == 5.0",
            "a - 200ns < a",
            "durationof({ }) == 0ns",
        ],
    );
}

#[test]
fn control_flow_switch_and_scopes() {
    checks(
        "int i = 15;\nint j = 0;\nswitch (i) {\n  case 1, 3, 5 { j = 1; }\n  case 15 { j = 2; }\n  default { j = 3; }\n}\n\
         int ii = 100;\n{ ii *= 2; int ii = 1; ii *= 2; }\nii *= 2;\nuint sum = 0;\n\
         for uint ii in [1:4] { sum += ii; if (sum > 10) { float ii = 10.0; sum += uint(ii * 2.0); } else { sum += ii; } }\n\
         int k = 0;\nwhile (k < 10) { k += 1; if (k == 2) { continue; } if (k == 4) { break; } }",
        &["j == 2", "ii == 400", "sum == 36", "k == 4"],
    );
}

#[test]
fn conversions_directly() {
    assert_eq!(wrap_int(130, &Type::Int(Some(8))), -126);
    assert_eq!(wrap_int(-1, &Type::UInt(Some(4))), 15);
    assert_eq!(angle_from_radians(std::f64::consts::PI, 4), Ok(0b1000));
    assert!(angle_from_radians(f64::NAN, 4).is_err());
    // Fewer bits round to the nearest pattern, ties to even; more bits pad with zeros.
    assert_eq!(resize_angle(0b0111, 4, 2), 0b10);
    assert_eq!(resize_angle(0b0110, 4, 2), 0b10);
    assert_eq!(resize_angle(0b0010, 4, 2), 0b00);
    assert_eq!(resize_angle(0b11, 2, 4), 0b1100);
    assert_eq!(round_float(0.1, &Type::Float(Some(16))), 0.0999755859375);
    assert_eq!(round_float(70000.0, &Type::Float(Some(16))), f64::INFINITY);
    // A float too large for its integer wraps around as other integers do (1e30 is a multiple of
    // 2^30); one past any integer is an error.
    assert_eq!(cast(&Value::Float(1e30), &Type::Float(None), &Type::Int(Some(8))), Ok(Value::Int(0)));
    let infinite = cast(&Value::Float(f64::INFINITY), &Type::Float(None), &Type::Int(Some(8)));
    assert_eq!(infinite, Err("inf does not fit `int[8]`".into()));
}
