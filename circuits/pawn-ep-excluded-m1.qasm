// pawn-ep-excluded-m1: PAWN_EP EXCLUDED .m1: e5 takes en passant on d6, where its own knight split to d6/a3 may stand; d6 is measured empty: the pawn takes d5, present only where d7-d5 went past d6
OPENQASM 2.0;
include "qelib1.inc";
// qchess circuit: 8 qubits, 1 classical bits.
// Qubit i is bit i of every result: q[0] is the least significant bit, and so is the first bit of the first classical register.
// q[0]: b5 (square b5)
// q[1]: d6 (square d6)
// q[2]: a3 (square a3)
// q[3]: d7 (square d7)
// q[4]: d5 (square d5)
// q[5]: e5 (square e5)
// q[6]: d6_1 (square d6, qubit 2 of it)
// q[7]: anc7_ep (ancilla: en passant record)
// Post-selection: keep only the runs in which every bit below reads the value shown.
//   c[0] = 0 (measured from q[1], d6)
// Final measurements: meas[0] = q[2], meas[1] = q[4], meas[2] = q[5], meas[3] = q[6], meas[4] = q[3].
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
qreg q[8];
creg c[1];
creg meas[5];
x q[0];
sqrt_iswap q[0], q[1];
iswap q[0], q[2];
x q[3];
x q[1];
c1_iswap q[1], q[3], q[4];
x q[1];
measure q[1] -> c[0];
x q[5];
cx q[4], q[7];
cx q[7], q[5];
cx q[7], q[6];
cx q[7], q[4];
measure q[2] -> meas[0];
measure q[4] -> meas[1];
measure q[5] -> meas[2];
measure q[6] -> meas[3];
measure q[3] -> meas[4];
