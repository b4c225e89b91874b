// DWPU AVERAGE: every lane's window sum divided by one divisor, rounded half to even
// (common/num div_round_half_even): q = |s| / d, r = |s| % d, q += (2r > d || (2r == d && q odd)),
// result = sign(s) * q; a divisor of 0 gives 0. A window sum of int8 taps is bounded by
// dwpu_max_taps * 128 < 2^15, so the divider works on 16-bit magnitudes (a one-cycle array
// divider per lane; the divisor is shared by the 64 lanes). Combinational.
module ax_dwpu_div
  import axcore_pkg::*;
(
  // verilator lint_off UNUSEDSIGNAL
  input  logic [PWORD_LANES-1:0][31:0] sum_i,   // only [15:0] carry information (see above)
  // verilator lint_on UNUSEDSIGNAL
  input  logic [15:0]                  div_i,
  output logic [PWORD_LANES-1:0][31:0] avg_o
);
`ifndef SYNTHESIS
  initial assert (DWPU_MAX_TAPS * 128 < (1 << 15))
    else $fatal(1, "ax_dwpu_div: window sums need more than 16 bits");
`endif

  always_comb begin
    for (int unsigned n = 0; n < PWORD_LANES; n++) begin
      logic        neg, up;
      logic [15:0] mag, q, r;
      neg = sum_i[n][31];
      mag = neg ? 16'(-sum_i[n]) : sum_i[n][15:0];
      q   = '0;
      r   = '0;
      if (div_i != '0) begin
        q = mag / div_i;
        r = mag % div_i;
      end
      up = ({r, 1'b0} > {1'b0, div_i}) || (({r, 1'b0} == {1'b0, div_i}) && q[0]);
      if (div_i == '0) up = 1'b0;
      q        = q + 16'(up);
      avg_o[n] = neg ? -32'(q) : 32'(q);
    end
  end
endmodule
