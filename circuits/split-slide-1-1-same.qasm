// split-slide-1-1-same: SPLIT_SLIDE arm case (1,1) with one shared path square: the rook a1 splits to a3 and a4, both arms through a2 (a knight split to a2/e4)
OPENQASM 2.0;
include "qelib1.inc";
// qchess circuit: 6 qubits, 0 classical bits.
// Qubit i is bit i of every result: q[0] is the least significant bit, and so is the first bit of the first classical register.
// q[0]: c3 (square c3)
// q[1]: a2 (square a2)
// q[2]: e4 (square e4)
// q[3]: a1 (square a1)
// q[4]: a3 (square a3)
// q[5]: a4 (square a4)
// Post-selection: none.
// Final measurements: meas[0] = q[3], meas[1] = q[1], meas[2] = q[4], meas[3] = q[5], meas[4] = q[2].
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
// c1_sqrt_iswap: sqrt_iswap with 1 control(s), controls first
gate c1_sqrt_iswap c0, a, b {
  cx a, b;
  h a;
  u1(-pi/8) c0;
  u1(-pi/8) b;
  cx c0, b;
  u1(pi/8) b;
  cx c0, b;
  u1(-pi/8) a;
  cx c0, a;
  u1(pi/8) a;
  cx b, a;
  u1(-pi/8) a;
  cx c0, a;
  u1(pi/8) a;
  cx b, a;
  h a;
  u1(pi/8) c0;
  u1(pi/8) b;
  cx c0, b;
  u1(-pi/8) b;
  cx c0, b;
  cx a, b;
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
qreg q[6];
creg meas[5];
x q[0];
sqrt_iswap q[0], q[1];
iswap q[0], q[2];
x q[3];
x q[1];
c1_sqrt_iswap q[1], q[3], q[4];
x q[1];
x q[1];
c1_iswap q[1], q[3], q[5];
x q[1];
measure q[3] -> meas[0];
measure q[1] -> meas[1];
measure q[4] -> meas[2];
measure q[5] -> meas[3];
measure q[2] -> meas[4];
