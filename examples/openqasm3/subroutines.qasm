OPENQASM 3.0;
include "stdgates.inc";
// Subroutines: classical and qubit arguments, return values, recursion, and an array passed
// by reference. fib(7) = 13 = 1101 is prepared on q; the parity of the measured bits (1)
// flips p.
def fib(int[32] n) -> int[32] {
    if (n < 2) { return n; }
    return fib(n - 1) + fib(n - 2);
}
def parity(bit[4] b) -> bit {
    bit p;
    for int i in [0:3] { p ^= b[i]; }
    return p;
}
def prepare(qubit[4] target, int[32] value) {
    for int i in [0:3] {
        if (value[i]) { x target[i]; }
    }
}
def double_all(mutable array[int[8], #dim = 1] xs) {
    for int i in [0:sizeof(xs) - 1] { xs[i] *= 2; }
}
qubit[4] q;
qubit p;
array[int[8], 3] xs = {1, 2, 3};
double_all(xs);                // {2, 4, 6}
prepare(q, fib(7));
bit[4] m = measure q;
if (parity(m)) { x p; }
if (xs[2] == 6) { z p; }       // a phase: the probabilities stay
