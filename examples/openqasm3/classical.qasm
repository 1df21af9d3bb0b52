OPENQASM 3.0;
// Classical types, casts and operators, with their widths: every value here is worked out by
// hand in the comments, and the outputs read them (qchess sim classical.qasm --shots 1).
output uint[8] product;   // 200 * 2 = 400 wraps around 8 bits: 144
output int[4] wrapped;    // 7 + 1 = 8 does not fit int[4]: -8, bits 1000
output angle[4] quarter;  // pi/2 in four bits: 0100
output bit[8] rotated;    // "10001111" rotated left by 2: "00111110"
output uint[4] ones;      // popcount of uint[6] 37 = "100101": 3
output bool checks;       // integer division, remainder, power and a signed cast of a slice

uint[8] big = 200;
product = big * 2;
int[4] seven = 7;
wrapped = seven + 1;
quarter = pi / 2;
bit[8] pattern = "10001111";
rotated = rotl(pattern, 2);
uint[6] b = 37;
ones = popcount(b);
// rotated[0:3] is "1110": as an int[4], -2.
checks = int[4](rotated[0:3]) == -2 && 7 / 2 == 3 && -7 % 3 == -1 && 2 ** 10 == 1024;
