OPENQASM 3.0;
include "stdgates.inc";
// Arrays (two dimensions, slices, `sizeof`, joined with `++`) and aliases (`let`) of joined
// and sliced registers. The sixes of `joined` pick which qubits of `both` flip.
array[int[8], 2, 3] grid = {{1, 2, 3}, {4, 5, 6}};
array[int[8], 3] row = grid[1];                   // {4, 5, 6}
grid[0, 0:1] = row[1:2];                          // grid[0] = {5, 6, 3}
array[int[8], 5] joined = row ++ grid[0, 1:2];    // {4, 5, 6, 6, 3}
qubit[3] a;
qubit[2] b;
let both = a ++ b;                                // a[0], a[1], a[2], b[0], b[1]
let tail = both[2:4];                             // a[2], b[0], b[1]
let picked = both[{0, 4}];                        // a[0], b[1]
for int i in [0:sizeof(joined) - 1] {
    if (joined[i] == 6) { x both[i]; }            // i = 2, 3: a[2] and b[0]
}
x picked[1];                                      // b[1]
cx tail[0], picked[0];                            // a[2] is 1: a[0] flips
