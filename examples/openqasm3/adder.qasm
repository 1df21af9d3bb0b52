OPENQASM 3.0;
include "stdgates.inc";
// A ripple-carry adder (Cuccaro, Draper, Kutin and Moulton, quant-ph/0410184) on classical
// inputs: b becomes a + b, the carry goes to cout, and `sum` reads them.
//   qchess sim adder.qasm --input a_in=9 --input b_in=13 --shots 10    # sum = 22
input uint[4] a_in;
input uint[4] b_in;
output bit[5] sum;

gate majority a, b, c {
    cx c, b;
    cx c, a;
    ccx a, b, c;
}
gate unmaj a, b, c {
    ccx a, b, c;
    cx c, a;
    cx a, b;
}

qubit cin;
qubit[4] a;
qubit[4] b;
qubit cout;
for int i in [0:3] {
    if (a_in[i]) { x a[i]; }
    if (b_in[i]) { x b[i]; }
}
majority cin, b[0], a[0];
for int i in [0:2] { majority a[i], b[i + 1], a[i + 1]; }
cx a[3], cout;
for int i in [2:-1:0] { unmaj a[i], b[i + 1], a[i + 1]; }
unmaj cin, b[0], a[0];
measure b -> sum[0:3];
sum[4] = measure cout;
