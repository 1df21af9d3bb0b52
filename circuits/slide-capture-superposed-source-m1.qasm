// slide-capture-superposed-source-m1: SLIDE CAPTURE .m1 from a superposed source: the rook split to a3/c1 captures on a6 past a5 (a knight split to a5/d6); the ancilla 'source occupied and path clear' is measured 1
OPENQASM 2.0;
include "qelib1.inc";
// qchess circuit: 8 qubits, 1 classical bits.
// Qubit i is bit i of every result: q[0] is the least significant bit, and so is the first bit of the first classical register.
// q[0]: a1 (square a1)
// q[1]: a3 (square a3)
// q[2]: c1 (square c1)
// q[3]: b7 (square b7)
// q[4]: a5 (square a5)
// q[5]: d6 (square d6)
// q[6]: anc6_cond (ancilla: measured condition)
// q[7]: a6 (square a6)
// Post-selection: keep only the runs in which every bit below reads the value shown.
//   c[0] = 1 (measured from q[6], anc6_cond)
// Final measurements: meas[0] = q[2], meas[1] = q[7], meas[2] = q[5].
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
qreg q[8];
creg c[1];
creg meas[3];
x q[0];
sqrt_iswap q[0], q[1];
iswap q[0], q[2];
x q[3];
sqrt_iswap q[3], q[4];
iswap q[3], q[5];
x q[4];
ccx q[1], q[4], q[6];
x q[4];
measure q[6] -> c[0];
iswap q[1], q[7];
measure q[2] -> meas[0];
measure q[7] -> meas[1];
measure q[5] -> meas[2];
