// pawn-ep-basic: PAWN_EP BASIC: the pawn on e5 (superposed after taking half a knight) takes d5 en passant after d7-d5 (X flips under a record ancilla)
OPENQASM 2.0;
include "qelib1.inc";
// qchess circuit: 7 qubits, 0 classical bits.
// Qubit i is bit i of every result: q[0] is the least significant bit, and so is the first bit of the first classical register.
// q[0]: g6 (square g6)
// q[1]: e5 (square e5)
// q[2]: h4 (square h4)
// q[3]: f4 (square f4)
// q[4]: d6 (square d6)
// q[5]: d5 (square d5)
// q[6]: anc6_ep (ancilla: en passant record)
// Post-selection: none.
// Final measurements: meas[0] = q[3], meas[1] = q[2], meas[2] = q[5], meas[3] = q[1], meas[4] = q[4].
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
qreg q[7];
creg meas[5];
x q[0];
sqrt_iswap q[0], q[1];
iswap q[0], q[2];
x q[3];
cx q[1], q[3];
x q[5];
cx q[1], q[6];
cx q[6], q[1];
cx q[6], q[4];
cx q[6], q[5];
measure q[3] -> meas[0];
measure q[2] -> meas[1];
measure q[5] -> meas[2];
measure q[1] -> meas[3];
measure q[4] -> meas[4];
