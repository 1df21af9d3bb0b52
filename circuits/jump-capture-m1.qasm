// jump-capture-m1: JUMP CAPTURE .m1: a knight split to a3/c3 attacks d5, held by a knight split to d5/h5; the attacker is measured on c3: it captures the d5 half of the victim
OPENQASM 2.0;
include "qelib1.inc";
// qchess circuit: 6 qubits, 1 classical bits.
// Qubit i is bit i of every result: q[0] is the least significant bit, and so is the first bit of the first classical register.
// q[0]: b1 (square b1)
// q[1]: a3 (square a3)
// q[2]: c3 (square c3)
// q[3]: f6 (square f6)
// q[4]: d5 (square d5)
// q[5]: h5 (square h5)
// Post-selection: keep only the runs in which every bit below reads the value shown.
//   c[0] = 1 (measured from q[2], c3)
// Final measurements: meas[0] = q[1], meas[1] = q[5].
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
qreg q[6];
creg c[1];
creg meas[2];
x q[0];
sqrt_iswap q[0], q[1];
iswap q[0], q[2];
x q[3];
sqrt_iswap q[3], q[4];
iswap q[3], q[5];
measure q[2] -> c[0];
measure q[1] -> meas[0];
measure q[5] -> meas[1];
