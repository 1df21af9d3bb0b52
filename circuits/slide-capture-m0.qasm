// slide-capture-m0: SLIDE CAPTURE .m0: the rook on a1 captures on a5 past a3 (a knight split to a3/d6); the path square is measured blocked: nothing is captured
OPENQASM 2.0;
include "qelib1.inc";
// qchess circuit: 3 qubits, 1 classical bits.
// Qubit i is bit i of every result: q[0] is the least significant bit, and so is the first bit of the first classical register.
// q[0]: b5 (square b5)
// q[1]: a3 (square a3)
// q[2]: d6 (square d6)
// Post-selection: keep only the runs in which every bit below reads the value shown.
//   c[0] = 1 (measured from q[1], a3)
// Final measurements: meas[0] = q[2].
gate rxx(theta) a, b {
  h a;
  h b;
  cx a, b;
  rz(theta) b;
  cx a, b;
  h a;
  h b;
}
gate ryy(theta) a, b {
  sdg a;
  sdg b;
  h a;
  h b;
  cx a, b;
  rz(theta) b;
  cx a, b;
  h a;
  h b;
  s a;
  s b;
}
gate sqrt_iswap a, b {
  rxx(-pi/4) a, b;
  ryy(-pi/4) a, b;
}
gate iswap a, b {
  s a;
  s b;
  h a;
  cx a, b;
  cx b, a;
  h b;
}
qreg q[3];
creg c[1];
creg meas[1];
x q[0];
sqrt_iswap q[0], q[1];
iswap q[0], q[2];
measure q[1] -> c[0];
measure q[2] -> meas[0];
