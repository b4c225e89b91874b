// Address generator of one DMA BD: visits d0..d3 (d0 innermost) over their padded extents
// (pad_before + size + pad_after, size 0 or 1 meaning unit) and gives, per beat, the byte
// address of its first word and whether it is padding. Address = base + 4 * sum((p_k -
// before_k) * stride_k) over the dimensions, where base already includes the iteration offset.
// Beat rule (docs/timing.md): n_o = the words from the position on the same d0 run and of the
// same kind (data / pad), data with d0 stride 1 inside one 64-byte row (else 1 word), pads up to
// 16; bn_o / brows_o = the DDR burst from the position (data: up to the next 4 KiB boundary).
// step_i consumes step_n_i words (n_o or bn_o) along d0.
module ax_dma_walk
  import axcore_pkg::*;
  import ax_rtl_pkg::*;
(
  input  logic                      clk_i,
  input  logic                      rst_ni,
  input  logic                      load_i,     // take a new BD (restarts the walk)
  input  dma_bd_t                   bd_i,
  input  logic signed [47:0]        base_i,     // byte address of the first word (iteration applied)
  input  logic                      step_i,     // the current beat is consumed
  input  logic [10:0]               step_n_i,   // its words (n_o, or bn_o for a DDR read burst)
  output logic                      active_o,   // a word is available
  output logic [DDR_ADDR_BITS-1:0]  addr_o,
  output logic                      pad_o,
  output logic [4:0]                n_o,        // words of the row beat from here (1..16)
  output logic [10:0]               bn_o,       // words of the DDR burst from here (1..1024)
  output logic [6:0]                brows_o,    // rows that burst touches (1..64)
  output logic                      run_first_o,
  output logic                      run_last_o, // a beat of step_n_i words ends the d0 run
  output logic                      last_o      // ... and the BD
);
  localparam int unsigned PW = 18;  // padded extent: up to 255 + 65535 + 255

  // The walk reads only the shape fields of the BD.
  logic unused_bd;
  assign unused_bd = ^bd_i;  // reserved bits and the non-shape fields

  logic [3:0][PW-1:0]         p_q, p_d, ext_q, bef_q, size_q;
  logic [3:0][23:0]           stride_q;
  logic signed [47:0]         base_q;
  logic                       active_q, active_d;
  logic [3:0]                 wrap;
  logic [PW-1:0]              seg, rowcap, pagecap;

  function automatic logic [PW-1:0] unit(logic [15:0] s);
    return (s == 16'd0) ? PW'(1) : PW'(s);
  endfunction

  logic [PW-1:0] p0_next;
  assign p0_next = p_q[0] + PW'(step_n_i);

  // The next position of a consumed beat, from the walk's state alone: step_i (the fabric's
  // grant) only picks it in the register below, so the walk's logic is evaluated in the cycles
  // its own clock runs, not in every cycle the fabric's arbitration changes (docs/rtl.md).
  always_comb begin
    logic carry;
    for (int unsigned k = 0; k < 4; k++) wrap[k] = (p_q[k] == ext_q[k] - 1'b1);
    wrap[0]  = (p0_next == ext_q[0]);  // the beat ends the d0 run
    p_d      = p_q;
    active_d = active_q;
    carry    = 1'b1;
    if (&wrap) begin
      active_d = 1'b0;
    end else if (!wrap[0]) begin
      p_d[0] = p0_next;
    end else begin
      // Increment the lowest dimension that does not wrap; reset the ones below it.
      for (int unsigned k = 0; k < 4; k++) begin
        if (carry) begin
          if (wrap[k]) begin
            p_d[k] = '0;
          end else begin
            p_d[k] = p_q[k] + 1'b1;
            carry  = 1'b0;
          end
        end
      end
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      p_q      <= '0;
      active_q <= 1'b0;
      ext_q    <= '0;
      bef_q    <= '0;
      size_q   <= '0;
      stride_q <= '0;
      base_q   <= '0;
    end else begin
      if (load_i) begin
        p_q      <= '0;
        active_q <= 1'b1;
      end else if (step_i && active_q) begin
        p_q      <= p_d;
        active_q <= active_d;
      end
      if (load_i) begin
        size_q   <= {unit(bd_i.d3_size), unit(bd_i.d2_size), unit(bd_i.d1_size), unit(bd_i.d0_size)};
        bef_q    <= {PW'(bd_i.d3_pad_before), PW'(bd_i.d2_pad_before), PW'(bd_i.d1_pad_before),
                     PW'(bd_i.d0_pad_before)};
        ext_q    <= {PW'(bd_i.d3_pad_before) + unit(bd_i.d3_size) + PW'(bd_i.d3_pad_after),
                     PW'(bd_i.d2_pad_before) + unit(bd_i.d2_size) + PW'(bd_i.d2_pad_after),
                     PW'(bd_i.d1_pad_before) + unit(bd_i.d1_size) + PW'(bd_i.d1_pad_after),
                     PW'(bd_i.d0_pad_before) + unit(bd_i.d0_size) + PW'(bd_i.d0_pad_after)};
        stride_q <= {bd_i.d3_stride, bd_i.d2_stride, bd_i.d1_stride, bd_i.d0_stride};
        base_q   <= base_i;
      end
    end
  end

  always_comb begin
    logic signed [47:0] off;
    off   = '0;
    pad_o = 1'b0;
    for (int unsigned k = 0; k < 4; k++) begin
      logic signed [PW:0] rel;
      rel = $signed({1'b0, p_q[k]}) - $signed({1'b0, bef_q[k]});
      if (p_q[k] < bef_q[k] || p_q[k] >= bef_q[k] + size_q[k]) pad_o = 1'b1;
      off = off + 48'(rel) * 48'($signed(stride_q[k]));
    end
    addr_o      = DDR_ADDR_BITS'(base_q + (off <<< 2));
    active_o    = active_q;
    // Beat and burst extents from the current d0 position.
    seg = (p_q[0] < bef_q[0]) ? bef_q[0] - p_q[0] :
          (p_q[0] < bef_q[0] + size_q[0]) ? bef_q[0] + size_q[0] - p_q[0] : ext_q[0] - p_q[0];
    rowcap  = PW'(16) - PW'(addr_o[5:2]);
    pagecap = PW'(32'h1000 - 32'(addr_o[11:0])) >> 2;
    if (pad_o)                         n_o = 5'((seg < PW'(16)) ? seg : PW'(16));
    else if (stride_q[0] != 24'd1)     n_o = 5'd1;
    else                               n_o = 5'((seg < rowcap) ? seg : rowcap);
    if (pad_o || stride_q[0] != 24'd1) bn_o = 11'(n_o);
    else                               bn_o = 11'((seg < pagecap) ? seg : pagecap);
    brows_o = 7'((32'(addr_o[5:2]) + 32'(bn_o) + 32'd15) >> 4);
    run_first_o = (p_q[0] == '0);
    run_last_o  = wrap[0];
    last_o      = &wrap;
  end
endmodule
