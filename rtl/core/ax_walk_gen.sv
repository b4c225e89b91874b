// Walk counters of an IFD or ODR (spec struct walk): i0..i5 over d0..d5 (i0 innermost, dims at
// or above ndims stay 0), the element row base_row + sum(ik * dk_stride) and the guard
// predicate (every g < nguards: 0 <= g_offset + sum(g_coefk * ik) < g_extent), both
// combinational from the counters. start_i rewinds; next_i steps; last_o marks the final element.
module ax_walk_gen
  import axcore_pkg::*;
  import ax_rtl_pkg::*;
  import ax_core_pkg::*;
(
  input  logic  clk_i,
  input  logic  rst_ni,
  // verilator lint_off UNUSEDSIGNAL
  input  walk_t walk_i,   // dtype, cast_from, pad_value and reserved bits are the unit's
  // verilator lint_on UNUSEDSIGNAL
  input  logic  start_i,
  input  logic  next_i,
  output srow_t row_o,
  output logic  pass_o,
  output logic  last_o
);
  logic [WALK_DIMS-1:0][15:0] idx_q, idx_d, size;
  logic signed [WALK_DIMS-1:0][23:0] stride;
  logic [WALK_DIMS-1:0] used, at_end;

  always_comb begin
    size   = {walk_i.d5_size, walk_i.d4_size, walk_i.d3_size, walk_i.d2_size, walk_i.d1_size,
              walk_i.d0_size};
    stride = {walk_i.d5_stride, walk_i.d4_stride, walk_i.d3_stride, walk_i.d2_stride,
              walk_i.d1_stride, walk_i.d0_stride};
    for (int unsigned k = 0; k < WALK_DIMS; k++) begin
      used[k]   = (k < 32'(walk_i.ndims));
      at_end[k] = !used[k] || (idx_q[k] + 16'd1 >= size[k]);
    end
  end
  assign last_o = &at_end;

  always_comb begin
    logic carry;
    idx_d = idx_q;
    carry = 1'b1;
    for (int unsigned k = 0; k < WALK_DIMS; k++) begin
      if (carry && used[k]) begin
        if (at_end[k]) idx_d[k] = '0;
        else begin
          idx_d[k] = idx_q[k] + 16'd1;
          carry    = 1'b0;
        end
      end
    end
    if (!next_i) idx_d = idx_q;
    if (start_i) idx_d = '0;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) idx_q <= '0;
    else         idx_q <= idx_d;
  end

  function automatic logic guard_ok(logic signed [15:0] off, logic [15:0] ext,
                                    logic signed [5:0][7:0] coef,
                                    logic [WALK_DIMS-1:0][15:0] idx);
    logic signed [31:0] v;
    v = 32'(off);
    for (int unsigned k = 0; k < WALK_DIMS; k++) v = v + 32'(coef[k]) * $signed({16'b0, idx[k]});
    return (v >= 0) && (v < $signed({16'b0, ext}));
  endfunction

  always_comb begin
    srow_t r;
    logic [WALK_GUARDS-1:0] ok;
    r = ROW_W'(walk_i.base_row);
    for (int unsigned k = 0; k < WALK_DIMS; k++) begin
      if (used[k]) r = r + ROW_W'(stride[k]) * $signed({32'b0, idx_q[k]});
    end
    row_o = r;
    ok[0] = guard_ok(walk_i.g0_offset, walk_i.g0_extent,
                     {walk_i.g0_coef5, walk_i.g0_coef4, walk_i.g0_coef3, walk_i.g0_coef2,
                      walk_i.g0_coef1, walk_i.g0_coef0}, idx_q);
    ok[1] = guard_ok(walk_i.g1_offset, walk_i.g1_extent,
                     {walk_i.g1_coef5, walk_i.g1_coef4, walk_i.g1_coef3, walk_i.g1_coef2,
                      walk_i.g1_coef1, walk_i.g1_coef0}, idx_q);
    ok[2] = guard_ok(walk_i.g2_offset, walk_i.g2_extent,
                     {walk_i.g2_coef5, walk_i.g2_coef4, walk_i.g2_coef3, walk_i.g2_coef2,
                      walk_i.g2_coef1, walk_i.g2_coef0}, idx_q);
    pass_o = 1'b1;
    for (int unsigned g = 0; g < WALK_GUARDS; g++) begin
      if (g < 32'(walk_i.nguards) && !ok[g]) pass_o = 1'b0;
    end
  end
endmodule
