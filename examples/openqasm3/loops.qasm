OPENQASM 3.0;
include "stdgates.inc";
// Loops: `for` over a range, a set, bits and an array; `while` with `break`; `continue`.
// The total they compute is written onto q in binary; the set loop flips r[3] and r[5].
qubit[8] q;
qubit[8] r;
array[int[8], 3] picks = {1, 4, 6};
uint[8] total = 0;
for int i in [0:2:6] { total += i; }              // 0 + 2 + 4 + 6 = 12
for uint j in {3, 5} { x r[j]; }
bit[3] pattern = "101";
for bit b in pattern { if (b) { total += 1; } }    // two ones: 14
for int k in picks {
    if (k == 4) { continue; }
    total += k;                                     // 1 + 6: 21
}
int[8] n = 0;
while (true) {
    n += 1;
    if (n == 5) { break; }
}
total += n;                                         // 26 = 00011010
for int i in [0:7] {
    if (total[i]) { x q[i]; }
}
