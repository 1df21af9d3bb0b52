// slide-path-3: SLIDE BASIC through three superposed squares: a1 -> a5 controlled on a path-clear ancilla over a2, a3 and a4
OPENQASM 2.0;
include "qelib1.inc";
// qchess circuit: 12 qubits, 0 classical bits.
// Qubit i is bit i of every result: q[0] is the least significant bit, and so is the first bit of the first classical register.
// q[0]: c3 (square c3)
// q[1]: a2 (square a2)
// q[2]: e4 (square e4)
// q[3]: b6 (square b6)
// q[4]: a4 (square a4)
// q[5]: d7 (square d7)
// q[6]: b5 (square b5)
// q[7]: a3 (square a3)
// q[8]: d6 (square d6)
// q[9]: a1 (square a1)
// q[10]: a5 (square a5)
// q[11]: anc11_path (ancilla: path-clear flag)
// Post-selection: none.
// Final measurements: meas[0] = q[9], meas[1] = q[1], meas[2] = q[7], meas[3] = q[4], meas[4] = q[2], meas[5] = q[10], meas[6] = q[8], meas[7] = q[5].
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
// c3_x: x with 3 control(s), controls first
gate c3_x c0, c1, c2, a {
  h a;
  u1(pi/8) c0;
  u1(pi/8) c1;
  cx c0, c1;
  u1(-pi/8) c1;
  cx c0, c1;
  u1(pi/8) c2;
  cx c0, c2;
  u1(-pi/8) c2;
  cx c1, c2;
  u1(pi/8) c2;
  cx c0, c2;
  u1(-pi/8) c2;
  cx c1, c2;
  u1(pi/8) a;
  cx c0, a;
  u1(-pi/8) a;
  cx c1, a;
  u1(pi/8) a;
  cx c0, a;
  u1(-pi/8) a;
  cx c2, a;
  u1(pi/8) a;
  cx c0, a;
  u1(-pi/8) a;
  cx c1, a;
  u1(pi/8) a;
  cx c0, a;
  u1(-pi/8) a;
  cx c2, a;
  h a;
}
// c1_iswap: iswap with 1 control(s), controls first
gate c1_iswap c0, a, b {
  cx a, b;
  h a;
  u1(-pi/4) c0;
  u1(-pi/4) b;
  cx c0, b;
  u1(pi/4) b;
  cx c0, b;
  u1(-pi/4) a;
  cx c0, a;
  u1(pi/4) a;
  cx b, a;
  u1(-pi/4) a;
  cx c0, a;
  u1(pi/4) a;
  cx b, a;
  h a;
  u1(pi/4) c0;
  u1(pi/4) b;
  cx c0, b;
  u1(-pi/4) b;
  cx c0, b;
  cx a, b;
}
qreg q[12];
creg meas[8];
x q[0];
sqrt_iswap q[0], q[1];
iswap q[0], q[2];
x q[3];
sqrt_iswap q[3], q[4];
iswap q[3], q[5];
x q[6];
sqrt_iswap q[6], q[7];
iswap q[6], q[8];
x q[9];
x q[1];
x q[7];
x q[4];
c3_x q[1], q[7], q[4], q[11];
x q[1];
x q[7];
x q[4];
c1_iswap q[11], q[9], q[10];
x q[1];
x q[7];
x q[4];
c3_x q[1], q[7], q[4], q[11];
x q[1];
x q[7];
x q[4];
measure q[9] -> meas[0];
measure q[1] -> meas[1];
measure q[7] -> meas[2];
measure q[4] -> meas[3];
measure q[2] -> meas[4];
measure q[10] -> meas[5];
measure q[8] -> meas[6];
measure q[5] -> meas[7];
