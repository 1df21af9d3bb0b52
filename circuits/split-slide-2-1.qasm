// split-slide-2-1: SPLIT_SLIDE arm case (2,1): the rook a1 splits to a5 and e1, arm 1 through a2 and a4, arm 2 through c1
OPENQASM 2.0;
include "qelib1.inc";
// qchess circuit: 14 qubits, 0 classical bits.
// Qubit i is bit i of every result: q[0] is the least significant bit, and so is the first bit of the first classical register.
// q[0]: c3 (square c3)
// q[1]: a2 (square a2)
// q[2]: e4 (square e4)
// q[3]: b6 (square b6)
// q[4]: a4 (square a4)
// q[5]: d7 (square d7)
// q[6]: e2 (square e2)
// q[7]: c1 (square c1)
// q[8]: g3 (square g3)
// q[9]: a1 (square a1)
// q[10]: a5 (square a5)
// q[11]: e1 (square e1)
// q[12]: anc12_path (ancilla: path-clear flag)
// q[13]: anc13_scratch (ancilla: scratch)
// Post-selection: none.
// Final measurements: meas[0] = q[9], meas[1] = q[7], meas[2] = q[11], meas[3] = q[1], meas[4] = q[8], meas[5] = q[4], meas[6] = q[2], meas[7] = q[10], meas[8] = q[5].
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
gate swap a, b {
  cx a, b;
  cx b, a;
  cx a, b;
}
qreg q[14];
creg meas[9];
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
x q[4];
ccx q[1], q[4], q[12];
x q[1];
x q[4];
x q[7];
ccx q[12], q[7], q[13];
c1_sqrt_iswap q[13], q[9], q[10];
c1_iswap q[13], q[9], q[11];
cx q[12], q[13];
c1_iswap q[13], q[9], q[10];
cx q[12], q[13];
swap q[12], q[7];
cx q[12], q[13];
c1_iswap q[13], q[9], q[11];
cx q[12], q[13];
swap q[12], q[7];
ccx q[12], q[7], q[13];
x q[7];
x q[1];
x q[4];
ccx q[1], q[4], q[12];
x q[1];
x q[4];
measure q[9] -> meas[0];
measure q[7] -> meas[1];
measure q[11] -> meas[2];
measure q[1] -> meas[3];
measure q[8] -> meas[4];
measure q[4] -> meas[5];
measure q[2] -> meas[6];
measure q[10] -> meas[7];
measure q[5] -> meas[8];
