OPENQASM 3.0;
include "stdgates.inc";
// Durations, stretches, delays and boxes: their arithmetic is checked, and in the ideal model
// waiting does nothing. The result is the Bell state (|01> + |10>) / sqrt(2).
qubit[2] q;
duration pulse = 40dt;
duration gap = 2 * pulse + 120dt;      // 200dt
stretch s;
float ratio = gap / pulse;             // 5.0
h q[0];
box [2us] {
    delay[gap] q[0];
    delay[s] q[1];
    x q[1];
}
delay[durationof({ x q[0]; })] q;      // gates take no time in the ideal model
if (ratio == 5.0) { cx q[0], q[1]; }
